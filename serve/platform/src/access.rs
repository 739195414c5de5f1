//! Who may call an operation, and what reaching each dataset asks. A leaf module: the registry
//! declares accesses and derives the datasets' ([`DatasetAccess::of_readers`]); `AppState` keeps
//! the derived table; `auth` applies them.

use std::collections::HashMap;

use sitrep_schemas::DatasetId;

/// Who may call an operation (SUPPLEMENT 1.10, 1.11, 4.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// No credential needed; a credential that is sent is still checked.
    Public,
    /// Any valid credential of an account that is not suspended (`api_access`, every plan).
    Subscription,
    /// `pro_data`: a Pro-or-better plan that has not lapsed.
    Pro,
    /// Company monitoring reads: scope `company_monitoring:read` and the `company_monitoring` entitlement.
    CmRead,
    /// Company monitoring writes: scope `company_monitoring:write` and the entitlement.
    CmWrite,
    /// GetCompanyMonitoringStatus: any valid credential, so every client can discover its access state.
    CmStatus,
}

impl Access {
    pub fn needs_credential(self) -> bool {
        self != Access::Public
    }

    /// How much a data access asks of a caller: the strictest of several is the one that asks most.
    pub fn demands(self) -> u8 {
        match self {
            Access::Public => 0,
            Access::Subscription | Access::CmStatus => 1,
            Access::Pro => 2,
            Access::CmRead | Access::CmWrite => 3,
        }
    }
}

/// Each dataset's access: the strictest access of the operations that read it.
#[derive(Debug, Clone, Default)]
pub struct DatasetAccess(HashMap<DatasetId, Access>);

impl DatasetAccess {
    /// From (dataset, access of an operation reading it) pairs: the strictest per dataset.
    pub fn of_readers(readers: impl IntoIterator<Item = (DatasetId, Access)>) -> Self {
        let mut table: HashMap<DatasetId, Access> = HashMap::new();
        for (dataset, access) in readers {
            let strictest = table.entry(dataset).or_insert(access);
            if access.demands() > strictest.demands() {
                *strictest = access;
            }
        }
        DatasetAccess(table)
    }

    /// What reaching `dataset` asks (any valid credential where no operation reads it).
    pub fn of(&self, dataset: DatasetId) -> Access {
        self.0.get(&dataset).copied().unwrap_or(Access::Subscription)
    }
}
