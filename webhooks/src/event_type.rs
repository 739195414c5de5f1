//! The event types an endpoint may receive.

sitrep_schemas::closed_set!(
    /// What an event reports; an endpoint names the ones it wants.
    EventType,
    "WebhookEventType",
    [
        CompanyImpactChanged = "company.impact.changed",
        DatasetVersionPublished = "dataset.version.published",
        Test = "webhook.test",
    ]
);

impl EventType {
    /// The types an endpoint may subscribe to (a test event goes to the endpoint it was sent to).
    pub const SUBSCRIBABLE: [EventType; 2] = [EventType::CompanyImpactChanged, EventType::DatasetVersionPublished];

    pub fn parse(name: &str) -> Option<EventType> {
        <EventType as sitrep_schemas::closed_set::ClosedSet>::from_wire_name(name)
    }
}
