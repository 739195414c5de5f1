//! A closed set's value in a response, as the type the OpenAPI document declares: a named string
//! enum (`MaterialImpactDirection`) of every value the code can produce, taken from the Rust enum
//! that writes them ([`ClosedSet`], issue 60), so the document and the answers cannot drift and a
//! generated client types the field as its enum, not as a bare string.

use std::borrow::Cow;

use poem_openapi::{
    registry::{MetaSchema, MetaSchemaRef, Registry},
    types::{ParseError, ParseFromJSON, ToJSON, Type},
};
use serde_json::Value;
use sitrep_schemas::closed_set::ClosedSet;

/// Value `E` written by its wire name (`MATERIAL_IMPACT_DIRECTION_MIXED`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WireName<E>(pub E);

impl<E: ClosedSet> serde::Serialize for WireName<E> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0.wire_name())
    }
}

impl<'de, E: ClosedSet> serde::Deserialize<'de> for WireName<E> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = <Cow<'de, str> as serde::Deserialize>::deserialize(d)?;
        E::from_wire_name(&name).map(WireName).ok_or_else(|| serde::de::Error::custom(format!("not a {}", E::NAME)))
    }
}

impl<E: ClosedSet> Type for WireName<E> {
    const IS_REQUIRED: bool = true;
    type RawValueType = Self;
    type RawElementValueType = Self;

    fn name() -> Cow<'static, str> {
        E::NAME.into()
    }

    fn schema_ref() -> MetaSchemaRef {
        MetaSchemaRef::Reference(E::NAME.to_string())
    }

    fn register(registry: &mut Registry) {
        registry.create_schema::<Self, _>(E::NAME.to_string(), |_| MetaSchema {
            enum_items: E::VALUES.iter().map(|v| Value::String(v.wire_name().into_owned())).collect(),
            ..MetaSchema::new("string")
        });
    }

    fn as_raw_value(&self) -> Option<&Self> {
        Some(self)
    }

    fn raw_element_iter<'a>(&'a self) -> Box<dyn Iterator<Item = &'a Self::RawElementValueType> + 'a> {
        Box::new(self.as_raw_value().into_iter())
    }
}

impl<E: ClosedSet> ToJSON for WireName<E> {
    fn to_json(&self) -> Option<Value> {
        Some(Value::String(self.0.wire_name().into_owned()))
    }
}

impl<E: ClosedSet> ParseFromJSON for WireName<E> {
    fn parse_from_json(value: Option<Value>) -> Result<Self, ParseError<Self>> {
        let name = value.as_ref().and_then(Value::as_str).unwrap_or_default();
        E::from_wire_name(name).map(WireName).ok_or_else(|| ParseError::custom(format!("not a {}", E::NAME)))
    }
}

/// A lake value of a closed set: a name outside it is the lake's error (the row is not read),
/// never an answer's value the document does not declare.
impl<E: ClosedSet> duckdb::types::FromSql for WireName<E> {
    fn column_result(value: duckdb::types::ValueRef<'_>) -> duckdb::types::FromSqlResult<Self> {
        let name = value.as_str()?;
        E::from_wire_name(name)
            .map(WireName)
            .ok_or_else(|| duckdb::types::FromSqlError::Other(format!("{name:?} is no {}", E::NAME).into()))
    }
}

#[cfg(test)]
mod tests {
    use sitrep_schemas::aviation::PositionSource;

    use super::*;

    #[test]
    fn a_value_is_its_wire_name_and_the_schema_every_value_the_code_writes() {
        assert_eq!(serde_json::to_value(WireName(PositionSource::Opensky)).unwrap(), "POSITION_SOURCE_OPENSKY");
        assert_eq!(WireName(PositionSource::Wingbits).to_json().unwrap(), "POSITION_SOURCE_WINGBITS");
        let mut registry = Registry::new();
        WireName::<PositionSource>::register(&mut registry);
        let values: Vec<&str> =
            registry.schemas["PositionSource"].enum_items.iter().filter_map(Value::as_str).collect();
        assert_eq!(values, ["POSITION_SOURCE_WINGBITS", "POSITION_SOURCE_OPENSKY"]);
        let parsed = WireName::<PositionSource>::parse_from_json(Some(Value::from("POSITION_SOURCE_OPENSKY")));
        assert_eq!(parsed.ok(), Some(WireName(PositionSource::Opensky)));
        assert!(WireName::<PositionSource>::parse_from_json(Some(Value::from("opensky"))).is_err());
        let read: WireName<PositionSource> = serde_json::from_value(Value::from("POSITION_SOURCE_WINGBITS")).unwrap();
        assert_eq!(read, WireName(PositionSource::Wingbits));
        assert!(serde_json::from_value::<WireName<PositionSource>>(Value::from("wingbits")).is_err());
    }

    #[test]
    fn a_lake_value_outside_the_set_is_an_error_not_an_answer() {
        let conn = duckdb::Connection::open_in_memory().unwrap();
        let read = |sql: &str| conn.query_row(sql, [], |r| r.get::<_, WireName<PositionSource>>(0));
        assert_eq!(read("SELECT 'POSITION_SOURCE_OPENSKY'").unwrap(), WireName(PositionSource::Opensky));
        let wrong = read("SELECT 'POSITION_SOURCE_SIMULATED'").unwrap_err().to_string();
        assert!(wrong.contains("\"POSITION_SOURCE_SIMULATED\" is no PositionSource"), "{wrong}");
        let absent = conn.query_row("SELECT NULL::VARCHAR", [], |r| r.get::<_, Option<WireName<PositionSource>>>(0));
        assert_eq!(absent.unwrap(), None, "a null is no value, as for any column");
    }
}
