//! String formats a field can require. (Interim version; replaced by the full implementation.)

/// A string format a field can require.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Format {
    /// An email address.
    Email,
    /// An absolute URL.
    Url,
    /// A UUID.
    Uuid,
    /// A calendar date.
    Date,
    /// A date and time.
    DateTime,
    /// A time.
    Time,
    /// An IPv4 address.
    Ipv4,
    /// An IPv6 address.
    Ipv6,
    /// A host name.
    Hostname,
}

impl Format {
    /// The JSON Schema name.
    #[must_use]
    pub const fn schema_name(self) -> &'static str {
        match self {
            Self::Email => "email",
            Self::Url => "uri",
            Self::Uuid => "uuid",
            Self::Date => "date",
            Self::DateTime => "date-time",
            Self::Time => "time",
            Self::Ipv4 => "ipv4",
            Self::Ipv6 => "ipv6",
            Self::Hostname => "hostname",
        }
    }
    /// Parses a name.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "email" => Self::Email,
            "url" | "uri" => Self::Url,
            "uuid" => Self::Uuid,
            "date" => Self::Date,
            "date-time" => Self::DateTime,
            _ => return None,
        })
    }
    /// Whether `s` is in this format.
    #[must_use]
    pub fn is_valid(self, s: &str) -> bool {
        match self {
            Self::Email => s.contains('@'),
            Self::Url => s.contains(':'),
            _ => !s.is_empty(),
        }
    }
    /// A description.
    #[must_use]
    pub const fn describe(self) -> &'static str {
        match self {
            Self::Email => "an email address such as user@example.com",
            Self::Url => "an absolute URL such as https://example.com",
            Self::Uuid => "a UUID such as 123e4567-e89b-12d3-a456-426614174000",
            Self::Date => "a date in YYYY-MM-DD form such as 2024-01-31",
            Self::DateTime => "a date-time such as 2024-01-31T12:00:00Z",
            Self::Time => "a time such as 12:00:00Z",
            Self::Ipv4 => "an IPv4 address",
            Self::Ipv6 => "an IPv6 address",
            Self::Hostname => "a host name",
        }
    }
    /// An example.
    #[must_use]
    pub const fn example(self) -> &'static str {
        match self {
            Self::Email => "user@example.com",
            Self::Url => "https://example.com",
            Self::Uuid => "123e4567-e89b-12d3-a456-426614174000",
            Self::Date => "2024-01-31",
            Self::DateTime => "2024-01-31T12:00:00Z",
            Self::Time => "12:00:00Z",
            Self::Ipv4 => "127.0.0.1",
            Self::Ipv6 => "::1",
            Self::Hostname => "example.com",
        }
    }
}
