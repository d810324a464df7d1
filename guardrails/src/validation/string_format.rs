//! String formats a field can require, checked the way JSON Schema validators check them.
//!
//! Every [`StringFormat`] has two faces that must never drift apart: the `"format"` keyword written
//! into the tool's JSON Schema ([`StringFormat::schema_name`]) and the check run before the handler
//! ([`StringFormat::is_valid`]). The check follows the `jsonschema` crate (draft 2020-12 with format
//! assertion on), so a value the published schema admits is a value the handler receives. The
//! one deliberate difference: `jsonschema` reads a few punctuation bytes (`*+,-./`) as digits
//! in dates and times, and reads an address in angle brackets (`Jane <jane@example.com>`) as
//! an email address; [`StringFormat::is_valid`] rejects both, because a handler must never receive
//! them.
//! Every other input gets the same answer, which `tests/schema/format_agreement.rs` checks.

use std::net::{Ipv4Addr, Ipv6Addr};
use std::str::FromStr;

use email_address::EmailAddress;
use unicode_general_category::{GeneralCategory, get_general_category};

/// A string format a field can require.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum StringFormat {
    /// An email address (RFC 5321 mailbox), `"format": "email"`.
    Email,
    /// An absolute URI (RFC 3986), `"format": "uri"`.
    Url,
    /// A hyphenated UUID in either case (RFC 9562), `"format": "uuid"`.
    Uuid,
    /// A calendar date `YYYY-MM-DD` (RFC 3339 `full-date`), `"format": "date"`.
    Date,
    /// A date and time with an offset (RFC 3339 `date-time`), `"format": "date-time"`.
    DateTime,
    /// A time of day with an offset (RFC 3339 `full-time`), `"format": "time"`.
    Time,
    /// An IPv4 address in dotted-decimal form, `"format": "ipv4"`.
    Ipv4,
    /// An IPv6 address (RFC 4291 text form), `"format": "ipv6"`.
    Ipv6,
    /// A DNS host name (RFC 1123, with RFC 5891 A-labels), `"format": "hostname"`.
    Hostname,
}

impl StringFormat {
    /// Every format, in declaration order.
    pub const ALL: &'static [StringFormat] = &[
        StringFormat::Email,
        StringFormat::Url,
        StringFormat::Uuid,
        StringFormat::Date,
        StringFormat::DateTime,
        StringFormat::Time,
        StringFormat::Ipv4,
        StringFormat::Ipv6,
        StringFormat::Hostname,
    ];

    /// The value of the JSON Schema `"format"` keyword for this format.
    ///
    /// [`StringFormat::Url`] is written `"uri"`, the name JSON Schema gives it.
    #[must_use]
    pub const fn schema_name(self) -> &'static str {
        match self {
            StringFormat::Email => "email",
            StringFormat::Url => "uri",
            StringFormat::Uuid => "uuid",
            StringFormat::Date => "date",
            StringFormat::DateTime => "date-time",
            StringFormat::Time => "time",
            StringFormat::Ipv4 => "ipv4",
            StringFormat::Ipv6 => "ipv6",
            StringFormat::Hostname => "hostname",
        }
    }

    /// The format a name stands for: any [`schema_name`](StringFormat::schema_name), plus `"url"`
    /// as the name Rust users reach for first.
    #[must_use]
    pub fn from_name(name: &str) -> Option<StringFormat> {
        match name {
            "email" => Some(StringFormat::Email),
            "url" | "uri" => Some(StringFormat::Url),
            "uuid" => Some(StringFormat::Uuid),
            "date" => Some(StringFormat::Date),
            "date-time" => Some(StringFormat::DateTime),
            "time" => Some(StringFormat::Time),
            "ipv4" => Some(StringFormat::Ipv4),
            "ipv6" => Some(StringFormat::Ipv6),
            "hostname" => Some(StringFormat::Hostname),
            _ => None,
        }
    }

    /// Whether `s` is a well-formed value of this format.
    ///
    /// Never panics, whatever the input.
    #[must_use]
    pub fn is_valid(self, s: &str) -> bool {
        match self {
            StringFormat::Email => is_email(s),
            StringFormat::Url => is_uri(s),
            StringFormat::Uuid => is_uuid(s),
            StringFormat::Date => is_date(s),
            StringFormat::DateTime => is_date_time(s),
            StringFormat::Time => is_time(s),
            StringFormat::Ipv4 => Ipv4Addr::from_str(s).is_ok(),
            StringFormat::Ipv6 => Ipv6Addr::from_str(s).is_ok(),
            StringFormat::Hostname => is_hostname(s),
        }
    }

    /// What a value of this format looks like, with an example, for the fix text of an error:
    /// "expected {describe}".
    #[must_use]
    pub const fn describe(self) -> &'static str {
        match self {
            StringFormat::Email => "an email address such as user@example.com",
            StringFormat::Url => "an absolute URL such as https://example.com",
            StringFormat::Uuid => "a UUID such as 123e4567-e89b-12d3-a456-426614174000",
            StringFormat::Date => "a date in YYYY-MM-DD form such as 2024-01-31",
            StringFormat::DateTime => {
                "an RFC 3339 date-time with a time zone such as 2024-01-31T09:30:00Z"
            }
            StringFormat::Time => "an RFC 3339 time with a time zone such as 09:30:00Z",
            StringFormat::Ipv4 => "an IPv4 address such as 192.168.1.1",
            StringFormat::Ipv6 => "an IPv6 address such as 2001:db8::1",
            StringFormat::Hostname => "a hostname such as example.com",
        }
    }

    /// A value of this format, the one [`describe`](StringFormat::describe) shows.
    #[must_use]
    pub const fn example(self) -> &'static str {
        match self {
            StringFormat::Email => "user@example.com",
            StringFormat::Url => "https://example.com",
            StringFormat::Uuid => "123e4567-e89b-12d3-a456-426614174000",
            StringFormat::Date => "2024-01-31",
            StringFormat::DateTime => "2024-01-31T09:30:00Z",
            StringFormat::Time => "09:30:00Z",
            StringFormat::Ipv4 => "192.168.1.1",
            StringFormat::Ipv6 => "2001:db8::1",
            StringFormat::Hostname => "example.com",
        }
    }
}

impl std::fmt::Display for StringFormat {
    /// Writes the [`schema_name`](StringFormat::schema_name).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.schema_name())
    }
}

// ---------------------------------------------------------------------------------------------
// Dates and times (RFC 3339 section 5.6)
// ---------------------------------------------------------------------------------------------

/// The value of a run of ASCII digits, or `None` if any byte is not one.
fn digits(bytes: &[u8]) -> Option<u16> {
    bytes.iter().try_fold(0u16, |value, &b| {
        b.is_ascii_digit().then(|| value * 10 + u16::from(b - b'0'))
    })
}

/// `full-date`: `YYYY-MM-DD` with the real length of the month, leap years included.
fn is_date(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return false;
    }
    let (Some(year), Some(month), Some(day)) = (digits(&b[..4]), digits(&b[5..7]), digits(&b[8..]))
    else {
        return false;
    };
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    let month_length = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=month_length).contains(&day)
}

/// `full-time`: `HH:MM:SS[.frac]` and `Z` or `±HH:MM`.
///
/// A leap second (`:60`) is only valid at 23:59 UTC, so the offset is applied before looking
/// at the hour and minute, as RFC 3339 section 5.7 asks.
fn is_time(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() < 9 || b[2] != b':' || b[5] != b':' {
        return false;
    }
    let (Some(hour), Some(minute), Some(second)) =
        (digits(&b[..2]), digits(&b[3..5]), digits(&b[6..8]))
    else {
        return false;
    };
    if hour > 23 || minute > 59 || second > 60 {
        return false;
    }
    let mut rest = &b[8..];
    if let Some(fraction) = rest.strip_prefix(b".") {
        let count = fraction.iter().take_while(|b| b.is_ascii_digit()).count();
        if count == 0 {
            return false;
        }
        rest = &fraction[count..];
    }
    let utc_minutes = i32::from(hour) * 60 + i32::from(minute);
    let utc_minutes = match rest {
        [b'Z' | b'z'] => utc_minutes,
        [sign @ (b'+' | b'-'), h1, h2, b':', m1, m2] => {
            let (Some(offset_hour), Some(offset_minute)) =
                (digits(&[*h1, *h2]), digits(&[*m1, *m2]))
            else {
                return false;
            };
            if offset_hour > 23 || offset_minute > 59 {
                return false;
            }
            let offset = i32::from(offset_hour) * 60 + i32::from(offset_minute);
            // Local time is UTC plus the offset, so UTC is local time minus it.
            if *sign == b'+' {
                utc_minutes - offset
            } else {
                utc_minutes + offset
            }
        }
        _ => return false,
    };
    second != 60 || utc_minutes.rem_euclid(24 * 60) == 23 * 60 + 59
}

/// `date-time`: a `full-date`, `T` (either case) and a `full-time`.
fn is_date_time(s: &str) -> bool {
    s.split_once(['T', 't'])
        .is_some_and(|(date, time)| is_date(date) && is_time(time))
}

// ---------------------------------------------------------------------------------------------
// UUID
// ---------------------------------------------------------------------------------------------

/// `8-4-4-4-12` hex digits of either case; JSON Schema asks for no particular version.
fn is_uuid(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 36
        && b.iter().enumerate().all(|(i, b)| match i {
            8 | 13 | 18 | 23 => *b == b'-',
            _ => b.is_ascii_hexdigit(),
        })
}

// ---------------------------------------------------------------------------------------------
// Email
// ---------------------------------------------------------------------------------------------

/// An RFC 5321 mailbox: a local part, `@`, and a host name or a bracketed address literal.
///
/// The local part's grammar is `email_address`'s, which `jsonschema` uses too; the domain is
/// held to the same rules as the `hostname` format.
fn is_email(s: &str) -> bool {
    // `email_address` turns down the empty quoted local part `""`, which RFC 5321 allows; an
    // equivalent one-character local part gets the same verdict for the rest.
    if let Some(domain) = s.strip_prefix("\"\"@") {
        return is_email(&format!("\"a\"@{domain}"));
    }
    // The crate reads anything after the last ` <` as an address in angle brackets, with or
    // without a display name before it (`Jane <jane@example.com>`, ` <jane@example.com>`):
    // header forms, not mailboxes. Inside a quoted local part ` <` makes the crate fail anyway.
    if let Some(plain) = plain_email(s) {
        return plain;
    }
    if s.contains(" <") {
        return false;
    }
    parsed_email(s)
}

/// The verdict on the common shape of address, a dot-atom local part and a host name, without
/// parsing: `None` for a quoted local part or an address literal, which [`parsed_email`]
/// decides.
///
/// `email_address` splits at the last `@`. It reads an unquoted local part as a dot-atom of at
/// most 64 bytes (where a local part that is not ASCII fails here, and in [`is_email`] after
/// it), and a domain that is no literal as labels that start and end with a letter or digit,
/// at most 63 bytes each and 254 in all: every host name passes that, so the host name rule
/// alone decides the domain. A space is in neither part, so an address after a display name
/// (` <`) is turned down here too.
fn plain_email(s: &str) -> Option<bool> {
    let bytes = s.as_bytes();
    let Some(at) = bytes.iter().rposition(|&b| b == b'@') else {
        return Some(false);
    };
    let (local, domain) = (&bytes[..at], &s[at + 1..]);
    if local.first() == Some(&b'"') || domain.starts_with('[') {
        return None;
    }
    // A dot-atom: atoms of `atext` joined by single dots.
    let mut previous = b'.';
    let local_ok = local.len() <= 64
        && local.iter().all(|&b| {
            let ok = ATEXT[usize::from(b)] || (b == b'.' && previous != b'.');
            previous = b;
            ok
        })
        && previous != b'.';
    Some(local_ok && is_hostname(domain))
}

/// The `atext` bytes of RFC 5322 section 3.2.3, by byte.
static ATEXT: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        #[expect(clippy::cast_possible_truncation, reason = "b < 256")]
        let byte = b as u8;
        table[b] = byte.is_ascii_alphanumeric()
            || matches!(
                byte,
                b'!' | b'#'
                    | b'$'
                    | b'%'
                    | b'&'
                    | b'\''
                    | b'*'
                    | b'+'
                    | b'-'
                    | b'/'
                    | b'='
                    | b'?'
                    | b'^'
                    | b'_'
                    | b'`'
                    | b'{'
                    | b'|'
                    | b'}'
                    | b'~'
            );
        b += 1;
    }
    table
};

/// The verdict through `email_address`'s parser, for every address [`plain_email`] leaves.
fn parsed_email(s: &str) -> bool {
    let Ok(address) = EmailAddress::from_str(s) else {
        return false;
    };
    if !address.local_part().is_ascii() {
        // Non-ASCII local parts belong to `idn-email`.
        return false;
    }
    let domain = address.domain();
    match domain.strip_prefix('[').and_then(|d| d.strip_suffix(']')) {
        Some(literal) => match literal.get(..5) {
            // The `IPv6:` tag of RFC 5321 section 4.1.3 is case-insensitive.
            Some(tag) if tag.eq_ignore_ascii_case("IPv6:") => {
                Ipv6Addr::from_str(&literal[5..]).is_ok()
            }
            _ => Ipv4Addr::from_str(literal).is_ok(),
        },
        None => is_hostname(domain),
    }
}

// ---------------------------------------------------------------------------------------------
// URI (RFC 3986 section 3)
// ---------------------------------------------------------------------------------------------

/// Character classes of RFC 3986, one bit each, so a scan can ask for several at once.
mod uri_class {
    /// `unreserved` and `sub-delims`: all a `reg-name` holds besides percent-encodings.
    pub(super) const REG_NAME: u8 = 1;
    pub(super) const COLON: u8 = 2;
    pub(super) const AT: u8 = 4;
    pub(super) const SLASH: u8 = 8;
    pub(super) const QUESTION: u8 = 16;
    pub(super) const PERCENT: u8 = 32;
    pub(super) const PATH: u8 = REG_NAME | COLON | AT | SLASH;
    /// Query and fragment share one grammar.
    pub(super) const QUERY: u8 = PATH | QUESTION;
    pub(super) const AUTHORITY: u8 = REG_NAME | COLON | AT;

    pub(super) const fn of(b: u8) -> u8 {
        match b {
            b'a'..=b'z'
            | b'A'..=b'Z'
            | b'0'..=b'9'
            | b'-'
            | b'.'
            | b'_'
            | b'~'
            | b'!'
            | b'$'
            | b'&'
            | b'\''
            | b'('
            | b')'
            | b'*'
            | b'+'
            | b','
            | b';'
            | b'=' => REG_NAME,
            b':' => COLON,
            b'@' => AT,
            b'/' => SLASH,
            b'?' => QUESTION,
            b'%' => PERCENT,
            _ => 0,
        }
    }
}

/// An absolute URI: `scheme ":" hier-part [ "?" query ] [ "#" fragment ]`.
fn is_uri(s: &str) -> bool {
    // An IP literal (`[...]`) has a grammar of its own; a full parser handles that case.
    uri_without_ip_literal(s.as_bytes()).unwrap_or_else(|| fluent_uri::Uri::parse(s).is_ok())
}

/// Whether `b` is an absolute URI, or `None` when its authority holds a bracket.
fn uri_without_ip_literal(b: &[u8]) -> Option<bool> {
    use uri_class::{AUTHORITY, COLON, PATH, QUERY};

    let Some(scheme) = scheme_length(b) else {
        return Some(false);
    };
    let mut at = scheme + 1;
    if b[at..].starts_with(b"//") {
        let Some(end) = scan_uri(b, at + 2, AUTHORITY) else {
            return Some(false);
        };
        if matches!(b.get(end), Some(b'[' | b']')) {
            return None;
        }
        // `[ userinfo "@" ] host [ ":" port ]`: the scan admitted only authority characters,
        // which any userinfo satisfies, so what is left is the host and the port.
        let authority = &b[at + 2..end];
        let host_port = authority
            .iter()
            .position(|&c| c == b'@')
            .map_or(authority, |i| &authority[i + 1..]);
        let host_end = host_port
            .iter()
            .position(|&c| uri_class::of(c) & (COLON | uri_class::AT) != 0)
            .unwrap_or(host_port.len());
        match host_port.get(host_end) {
            None => {}
            Some(b':') if host_port[host_end + 1..].iter().all(u8::is_ascii_digit) => {}
            Some(_) => return Some(false),
        }
        at = end;
    }
    let Some(end) = scan_uri(b, at, PATH) else {
        return Some(false);
    };
    at = end;
    for delimiter in [b'?', b'#'] {
        if b.get(at) == Some(&delimiter) {
            let Some(end) = scan_uri(b, at + 1, QUERY) else {
                return Some(false);
            };
            at = end;
        }
    }
    Some(at == b.len())
}

/// The length of a leading `scheme` that a `:` follows.
fn scheme_length(b: &[u8]) -> Option<usize> {
    if !b.first()?.is_ascii_alphabetic() {
        return None;
    }
    let length = b
        .iter()
        .position(|&c| !(c.is_ascii_alphanumeric() || matches!(c, b'+' | b'-' | b'.')))?;
    (b[length] == b':').then_some(length)
}

/// The end of the run of bytes in `class` from `at`, percent-encodings included; `None` on a
/// broken percent-encoding.
fn scan_uri(b: &[u8], mut at: usize, class: u8) -> Option<usize> {
    while let Some(&c) = b.get(at) {
        let found = uri_class::of(c);
        if found & class != 0 {
            at += 1;
        } else if found == uri_class::PERCENT {
            if !b.get(at + 1..at + 3)?.iter().all(u8::is_ascii_hexdigit) {
                return None;
            }
            at += 3;
        } else {
            break;
        }
    }
    Some(at)
}

// ---------------------------------------------------------------------------------------------
// Host names (RFC 1123 section 2.1, RFC 5890-5892 for A-labels)
// ---------------------------------------------------------------------------------------------

/// Dot-separated labels of letters, digits and inner hyphens, 1 to 63 bytes each, 253 in
/// all. A label with `--` in its third and fourth places must be an A-label (`xn--`) that
/// decodes to a valid internationalized label (RFC 5891 section 4.2.3.1).
fn is_hostname(s: &str) -> bool {
    if s.is_empty() || s.len() > 253 {
        return false;
    }
    let bytes = s.as_bytes();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'.' {
            if !is_host_label(&s[start..i]) {
                return false;
            }
            start = i + 1;
        }
    }
    is_host_label(&s[start..])
}

/// One label of a host name: letters, digits and inner hyphens, an A-label when it has `--`
/// at the third and fourth places.
fn is_host_label(label: &str) -> bool {
    let b = label.as_bytes();
    if b.is_empty()
        || b.len() > 63
        || b[0] == b'-'
        || b[b.len() - 1] == b'-'
        || !b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'-')
    {
        return false;
    }
    if b.len() < 4 || &b[2..4] != b"--" {
        return true;
    }
    label
        .strip_prefix("xn--")
        .and_then(decode_punycode)
        .is_some_and(|decoded| is_valid_u_label(&decoded))
}

/// Punycode parameters of RFC 3492 section 5, the ones IDNA uses.
mod punycode {
    pub(super) const BASE: u32 = 36;
    pub(super) const T_MIN: u32 = 1;
    pub(super) const T_MAX: u32 = 26;
    pub(super) const SKEW: u32 = 38;
    pub(super) const DAMP: u32 = 700;
    pub(super) const INITIAL_BIAS: u32 = 72;
    pub(super) const INITIAL_N: u32 = 128;

    /// Bias adaptation, RFC 3492 section 6.1.
    pub(super) fn adapt(mut delta: u32, count: u32, first: bool) -> u32 {
        delta /= if first { DAMP } else { 2 };
        delta += delta / count;
        let mut k = 0;
        while delta > ((BASE - T_MIN) * T_MAX) / 2 {
            delta /= BASE - T_MIN;
            k += BASE;
        }
        k + ((BASE - T_MIN + 1) * delta) / (delta + SKEW)
    }

    pub(super) fn digit(b: u8) -> Option<u32> {
        match b {
            b'0'..=b'9' => Some(u32::from(b - b'0') + 26),
            b'A'..=b'Z' => Some(u32::from(b - b'A')),
            b'a'..=b'z' => Some(u32::from(b - b'a')),
            _ => None,
        }
    }
}

/// Decodes the Punycode payload of an A-label (what follows `xn--`), RFC 3492 section 6.2;
/// `None` when it is not valid Punycode. Every step is checked, so no input overflows.
fn decode_punycode(input: &str) -> Option<String> {
    use punycode::{BASE, INITIAL_BIAS, INITIAL_N, T_MAX, T_MIN};

    let bytes = input.as_bytes();
    // The last `-` ends the basic code points only if some precede it; a leading `-` belongs
    // to the encoded part, where it is not a digit, so the label is rejected.
    let (basic, encoded) = match bytes.iter().rposition(|&b| b == b'-') {
        Some(i) if i > 0 => (&bytes[..i], &bytes[i + 1..]),
        _ => (&bytes[..0], bytes),
    };
    let mut output: Vec<char> = basic.iter().map(|&b| char::from(b)).collect();
    let mut code_point = INITIAL_N;
    let mut index: u32 = 0;
    let mut bias = INITIAL_BIAS;
    let mut digits = encoded.iter();
    while !digits.as_slice().is_empty() {
        let previous = index;
        let mut weight: u32 = 1;
        let mut k = BASE;
        loop {
            let digit = punycode::digit(*digits.next()?)?;
            index = index.checked_add(digit.checked_mul(weight)?)?;
            let threshold = k.saturating_sub(bias).clamp(T_MIN, T_MAX);
            if digit < threshold {
                break;
            }
            weight = weight.checked_mul(BASE - threshold)?;
            k += BASE;
        }
        let count = u32::try_from(output.len()).ok()? + 1;
        bias = punycode::adapt(index - previous, count, previous == 0);
        code_point = code_point.checked_add(index / count)?;
        index %= count;
        output.insert(usize::try_from(index).ok()?, char::from_u32(code_point)?);
        index += 1;
    }
    Some(output.into_iter().collect())
}

/// The code point rules of RFC 5892 for a decoded label: letters, marks and decimal digits
/// (PVALID by general category), the listed exceptions, and the CONTEXTJ/CONTEXTO rules of
/// its appendix A.
fn is_valid_u_label(label: &str) -> bool {
    let mut chars = label.chars().peekable();
    if chars.peek().is_some_and(|&first| {
        matches!(
            get_general_category(first),
            GeneralCategory::SpacingMark
                | GeneralCategory::NonspacingMark
                | GeneralCategory::EnclosingMark
        )
    }) {
        return false;
    }
    let mut previous = None;
    let mut katakana_middle_dot = false;
    let mut hiragana_katakana_han = false;
    let mut arabic_indic_digits = false;
    let mut extended_arabic_indic_digits = false;
    while let Some(current) = chars.next() {
        let next = chars.peek().copied();
        match current {
            // ZERO WIDTH JOINER only after a virama (appendix A.2).
            '\u{200D}' if !previous.is_some_and(is_virama) => return false,
            // MIDDLE DOT only between two `l` (appendix A.3).
            '\u{00B7}' if previous != Some('l') || next != Some('l') => return false,
            // Greek KERAIA before a Greek letter (appendix A.4).
            '\u{0375}' if !next.is_some_and(|n| ('\u{0370}'..='\u{03FF}').contains(&n)) => {
                return false;
            }
            // Hebrew GERESH and GERSHAYIM after a Hebrew letter (appendix A.5, A.6).
            '\u{05F3}' | '\u{05F4}'
                if !previous.is_some_and(|p| ('\u{0590}'..='\u{05FF}').contains(&p)) =>
            {
                return false;
            }
            // KATAKANA MIDDLE DOT needs some Hiragana, Katakana or Han (appendix A.7).
            '\u{30FB}' => katakana_middle_dot = true,
            '\u{3040}'..='\u{309F}' | '\u{30A0}'..='\u{30FF}' | '\u{4E00}'..='\u{9FFF}' => {
                hiragana_katakana_han = true;
            }
            // The two sets of Arabic-Indic digits never mix (appendix A.8, A.9).
            '\u{0660}'..='\u{0669}' => arabic_indic_digits = true,
            '\u{06F0}'..='\u{06F9}' => extended_arabic_indic_digits = true,
            // DISALLOWED exceptions whose category would pass (RFC 5892 section 2.6).
            '\u{0640}'
            | '\u{07FA}'
            | '\u{302E}'
            | '\u{302F}'
            | '\u{3031}'..='\u{3035}'
            | '\u{303B}' => return false,
            // PVALID or contextual exceptions whose category would fail; the contextual
            // ones passed their rule above.
            '\u{200C}' | '\u{200D}' | '\u{00B7}' | '\u{0375}' | '\u{05F3}' | '\u{05F4}'
            | '\u{06FD}' | '\u{06FE}' | '\u{0F0B}' | '\u{3007}' => {}
            other if !other.is_ascii() && !is_pvalid_category(get_general_category(other)) => {
                return false;
            }
            _ => {}
        }
        previous = Some(current);
    }
    (hiragana_katakana_han || !katakana_middle_dot)
        && !(arabic_indic_digits && extended_arabic_indic_digits)
}

/// RFC 5892 derives PVALID mostly from these general categories.
fn is_pvalid_category(category: GeneralCategory) -> bool {
    matches!(
        category,
        GeneralCategory::UppercaseLetter
            | GeneralCategory::LowercaseLetter
            | GeneralCategory::TitlecaseLetter
            | GeneralCategory::ModifierLetter
            | GeneralCategory::OtherLetter
            | GeneralCategory::NonspacingMark
            | GeneralCategory::SpacingMark
            | GeneralCategory::DecimalNumber
    )
}

/// The code points with `Canonical_Combining_Class=Virama`, after which a ZERO WIDTH JOINER
/// may stand.
fn is_virama(c: char) -> bool {
    matches!(
        c,
        '\u{094D}'
            | '\u{09CD}'
            | '\u{0A4D}'
            | '\u{0ACD}'
            | '\u{0B4D}'
            | '\u{0BCD}'
            | '\u{0C4D}'
            | '\u{0CCD}'
            | '\u{0D4D}'
            | '\u{0DCA}'
            | '\u{0E3A}'
            | '\u{0F84}'
            | '\u{1039}'
            | '\u{1714}'
            | '\u{1734}'
            | '\u{17D2}'
            | '\u{1A60}'
            | '\u{1B44}'
            | '\u{1BAA}'
            | '\u{1BF2}'
            | '\u{1BF3}'
            | '\u{2D7F}'
            | '\u{A806}'
            | '\u{A8C4}'
            | '\u{A953}'
            | '\u{ABED}'
            | '\u{10A3F}'
            | '\u{11046}'
            | '\u{1107F}'
            | '\u{110B9}'
            | '\u{11133}'
            | '\u{111C0}'
            | '\u{11235}'
            | '\u{112EA}'
            | '\u{1134D}'
            | '\u{11442}'
            | '\u{114C2}'
            | '\u{115BF}'
            | '\u{1163F}'
            | '\u{116B6}'
            | '\u{1172B}'
            | '\u{11839}'
            | '\u{119E0}'
            | '\u{11A34}'
            | '\u{11A47}'
            | '\u{11A99}'
            | '\u{11C3F}'
            | '\u{11D44}'
            | '\u{11D45}'
            | '\u{11D97}'
    )
}

#[cfg(test)]
mod tests {
    use super::StringFormat;

    #[test]
    fn a_format_is_found_by_its_name_and_checks_its_values() {
        let date = StringFormat::from_name("date").unwrap();
        assert!(date.is_valid("2024-02-29"));
        assert!(!date.is_valid("2023-02-29"));
        assert_eq!(StringFormat::Url.schema_name(), "uri");
    }

    #[test]
    fn plain_email_agrees_with_the_parser() {
        let long_local = format!("{}@example.com", "a".repeat(64));
        let too_long_local = format!("{}@example.com", "a".repeat(65));
        let long_domain = format!("a@{}.com", vec!["b".repeat(62); 4].join("."));
        let long_label = format!("a@{}.com", "c".repeat(64));
        let cases = [
            "jane@example.com",
            "jane.doe+tag@mail.example.co",
            "a@b",
            "@example.com",
            "jane@",
            "jane",
            "jane@@example.com",
            "ja@ne@example.com",
            ".jane@example.com",
            "jane.@example.com",
            "ja..ne@example.com",
            "jane@-example.com",
            "jane@example-.com",
            "jane@exa_mple.com",
            "jane@example..com",
            "jane@example.com.",
            "jane@xn--bcher-kva.example",
            "jane@ab--cd.example",
            "jane@xn--a.example",
            "j!#$%&'*+-/=?^_`{|}~@example.com",
            "ja ne@example.com",
            "ja(ne)@example.com",
            "ja<ne@example.com",
            "jane@exa mple.com",
            "Jane <jane@example.com>",
            "jané@example.com",
            "jane@exämple.com",
            "jane@xn--exmple-cua.com",
            "ja\"ne@example.com",
            "jane@ex[ample.com",
            "jane@example.com]",
            " <jane@example.com>",
            "jane@127.0.0.1",
            "\\jane@example.com",
            &long_local,
            &too_long_local,
            &long_domain,
            &long_label,
        ];
        for case in cases {
            let plain = super::plain_email(case).expect("plain ASCII");
            let parsed = !case.contains(" <") && super::parsed_email(case);
            assert_eq!(plain, parsed, "{case:?}");
        }
        for other in [
            "\"a b\"@example.com",
            "jane@[127.0.0.1]",
            "\"\"@example.com",
        ] {
            assert_eq!(super::plain_email(other), None, "{other:?}");
        }
    }

    #[test]
    fn plain_email_agrees_with_the_parser_on_generated_text() {
        use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
        // A fixed generator: the same texts on every run.
        let mut runner = TestRunner::new_with_rng(
            Config::with_cases(20_000),
            TestRng::deterministic_rng(RngAlgorithm::ChaCha),
        );
        runner
            .run(&"[a-c0-9.@\"\\[\\] <>_é-]{0,20}", |text| {
                if let Some(plain) = super::plain_email(&text) {
                    let parsed = !text.contains(" <") && super::parsed_email(&text);
                    proptest::prop_assert_eq!(plain, parsed, "{:?}", text);
                }
                Ok(())
            })
            .unwrap();
    }

    #[test]
    fn names_round_trip() {
        for &format in StringFormat::ALL {
            assert_eq!(StringFormat::from_name(format.schema_name()), Some(format));
            assert_eq!(format.to_string(), format.schema_name());
        }
        assert_eq!(StringFormat::from_name("url"), Some(StringFormat::Url));
        assert_eq!(StringFormat::from_name("Email"), None);
        assert_eq!(StringFormat::from_name("idn-email"), None);
    }

    #[test]
    fn every_description_shows_its_valid_example() {
        for &format in StringFormat::ALL {
            assert!(format.is_valid(format.example()), "{format}");
            assert!(format.describe().ends_with(format.example()), "{format}");
        }
    }

    #[test]
    fn dates_know_month_lengths_and_leap_years() {
        let date = StringFormat::Date;
        assert!(date.is_valid("2024-02-29"));
        assert!(date.is_valid("2000-02-29"));
        assert!(!date.is_valid("2023-02-29"));
        assert!(!date.is_valid("1900-02-29"));
        assert!(date.is_valid("2024-12-31"));
        assert!(!date.is_valid("2024-11-31"));
        assert!(!date.is_valid("2024-01-1*"), "punctuation is no digit");
        assert!(!date.is_valid("2024-1-31"));
    }

    #[test]
    fn times_need_an_offset_and_allow_leap_seconds_at_23_59_utc() {
        let time = StringFormat::Time;
        assert!(time.is_valid("23:59:60Z"));
        assert!(time.is_valid("15:59:60-08:00"));
        assert!(time.is_valid("00:29:60+00:30"));
        assert!(!time.is_valid("23:59:60+01:00"));
        assert!(!time.is_valid("24:00:00Z"));
        assert!(!time.is_valid("12:00:00"));
        assert!(!time.is_valid("1*:00:00Z"), "punctuation is no digit");
        assert!(StringFormat::DateTime.is_valid("2024-01-31t09:30:00.25z"));
        assert!(!StringFormat::DateTime.is_valid("2024-01-31 09:30:00Z"));
    }

    #[test]
    fn emails_are_mailboxes_without_display_names() {
        let email = StringFormat::Email;
        assert!(email.is_valid("user@[127.0.0.1]"));
        assert!(email.is_valid("user@[ipv6:::1]"));
        assert!(email.is_valid("\"\"@example.com"));
        assert!(!email.is_valid("Jane <jane@example.com>"));
        assert!(!email.is_valid(" <jane@example.com>"));
        assert!(!email.is_valid("user@exa_mple.com"));
    }

    #[test]
    fn urls_are_absolute() {
        assert!(StringFormat::Url.is_valid("http://"));
        assert!(StringFormat::Url.is_valid("a:b"));
        assert!(StringFormat::Url.is_valid("http://[2001:db8::1]:8080/"));
        assert!(!StringFormat::Url.is_valid("/relative/path"));
        assert!(!StringFormat::Url.is_valid("http://exa mple.com"));
    }

    #[test]
    fn hostnames_check_a_labels() {
        assert!(StringFormat::Hostname.is_valid("xn--bcher-kva.example"));
        assert!(!StringFormat::Hostname.is_valid("xn--abc"));
        assert!(!StringFormat::Hostname.is_valid("ab--cd"));
        assert!(!StringFormat::Hostname.is_valid(&"a.".repeat(127)));
    }

    #[test]
    fn odd_inputs_do_not_panic() {
        let long_punycode = format!("xn--{}", "9".repeat(59));
        let inputs = [
            "",
            "\u{0}",
            "é",
            "00:00:00+",
            "0000-00-00T",
            "%",
            "a:%",
            "@",
            "\"@",
            "xn--",
            "xn---",
            long_punycode.as_str(),
            "http://[",
            "user@[IPv6:",
        ];
        for &format in StringFormat::ALL {
            for input in inputs {
                let _ = format.is_valid(input);
            }
        }
    }
}
