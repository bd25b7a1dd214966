//! The `ssh_private_key` format: PEM data holding at least one private key.
//!
//! [`check_private_key`] follows the reference system's PEM validator: the value is a sequence
//! of PEM blocks (`-----BEGIN X-----`, optional `Name: value` headers, a base64 body,
//! `-----END X-----`), at least one of which is a private key. It also reports whether a key is
//! encrypted, which decides whether a credential needs an unlock passphrase.
//!
//! Accepted labels:
//!
//! * private keys: `RSA PRIVATE KEY`, `DSA PRIVATE KEY`, `EC PRIVATE KEY`,
//!   `OPENSSH PRIVATE KEY`, `PRIVATE KEY` (PKCS #8) and `ENCRYPTED PRIVATE KEY`;
//! * allowed alongside them, not counted as keys: `CERTIFICATE`, `PUBLIC KEY`.
//!
//! A key is encrypted when its label is `ENCRYPTED PRIVATE KEY`, when its headers mention
//! `ENCRYPTED` (`Proc-Type: 4,ENCRYPTED`), or when it is an OpenSSH key whose cipher is not
//! `none`.
//!
//! Nothing here decrypts or fully decodes a key: the check is about shape, not about key
//! material.

use base64::Engine as _;
use base64::alphabet;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};

/// What the check learnt about valid key data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct KeyInfo {
    /// Whether a private key in the data is encrypted (needs a passphrase).
    pub encrypted: bool,
}

/// The placeholder a client sends back for a stored secret; it stands for the stored key.
const ENCRYPTED_PLACEHOLDER: &str = "$encrypted$";

/// Labels of the private keys the check accepts.
const PRIVATE_KEY_LABELS: [&str; 6] = [
    "RSA PRIVATE KEY",
    "DSA PRIVATE KEY",
    "EC PRIVATE KEY",
    "OPENSSH PRIVATE KEY",
    "PRIVATE KEY",
    "ENCRYPTED PRIVATE KEY",
];

/// Labels of the other PEM objects allowed next to the keys.
const OTHER_LABELS: [&str; 2] = ["CERTIFICATE", "PUBLIC KEY"];

/// The magic an OpenSSH private key's binary starts with.
const OPENSSH_MAGIC: &[u8] = b"openssh-key-v1\0";

/// How many characters of unparseable data the error message quotes.
const QUOTED_CHARS: usize = 100;

/// Standard base64 that, like Python's decoder, accepts non-zero trailing bits.
const BASE64: GeneralPurpose = GeneralPurpose::new(
    &alphabet::STANDARD,
    GeneralPurposeConfig::new()
        .with_decode_allow_trailing_bits(true)
        .with_decode_padding_mode(DecodePaddingMode::RequireCanonical),
);

/// Checks `data` against the `ssh_private_key` format.
///
/// An empty value and the literal `$encrypted$` pass (as not encrypted). A literal `\u003d`
/// (a JSON-escaped `=` some clients leave in pasted keys) is read as `=`.
///
/// # Errors
///
/// One message, as in the reference system:
/// * `Invalid certificate or key: <the first 100 characters of the rest of the data>...`
///   when the data is not a sequence of PEM blocks;
/// * `Unsupported PEM object type: "<label>"` for a label that is neither a key, a
///   certificate nor a public key;
/// * `Invalid private key: unsupported type "<algorithm>"` for another `… PRIVATE KEY` label;
/// * `Invalid base64-encoded data` for a body that is not base64 (or is empty);
/// * `Invalid private key: …` for an OpenSSH key whose binary is malformed;
/// * `At least one private key is required.` when the blocks hold no private key.
pub fn check_private_key(data: &str) -> Result<KeyInfo, String> {
    if data.is_empty() || data == ENCRYPTED_PLACEHOLDER {
        return Ok(KeyInfo::default());
    }
    let data = data.replace("\\u003d", "=");
    let mut rest = data.trim_start();
    let mut keys = 0_usize;
    let mut encrypted = false;
    while !rest.is_empty() {
        let Some(block) = PemBlock::parse(rest) else {
            let quoted: String = rest.chars().take(QUOTED_CHARS).collect();
            return Err(format!("Invalid certificate or key: {quoted}..."));
        };
        rest = block.rest.trim_start();

        let is_key = PRIVATE_KEY_LABELS.contains(&block.label);
        if !is_key && !OTHER_LABELS.contains(&block.label) {
            if block.label.ends_with("PRIVATE KEY") {
                let algorithm = block
                    .label
                    .strip_suffix(" PRIVATE KEY")
                    .unwrap_or(block.label);
                return Err(format!(
                    "Invalid private key: unsupported type \"{algorithm}\""
                ));
            }
            return Err(format!("Unsupported PEM object type: \"{}\"", block.label));
        }

        let contents = BlockContents::read(block.body)?;
        if is_key {
            keys += 1;
            let key_encrypted = block.label == "ENCRYPTED PRIVATE KEY"
                || contents.headers_mention_encrypted
                || (block.label == "OPENSSH PRIVATE KEY"
                    && openssh_cipher(&contents.binary)? != "none");
            encrypted |= key_encrypted;
        }
    }
    if keys == 0 {
        return Err("At least one private key is required.".to_owned());
    }
    Ok(KeyInfo { encrypted })
}

/// One PEM block split off the front of the data.
#[derive(Debug)]
struct PemBlock<'a> {
    /// The label between `BEGIN` and the dashes, without trailing spaces.
    label: &'a str,
    /// Everything between the `BEGIN` line's dashes and the `END` marker.
    body: &'a str,
    /// The data after the block.
    rest: &'a str,
}

impl<'a> PemBlock<'a> {
    /// Parses a block at the very start of `text`, as the reference system's expression
    /// `^(-{4,}) *BEGIN ([A-Z ]+?) *\1\s*(.+?)\s*\1 *END \2 *\1(.*)$` does.
    fn parse(text: &'a str) -> Option<PemBlock<'a>> {
        let dashes = text.len() - text.trim_start_matches('-').len();
        if dashes < 4 {
            return None;
        }
        let dash_run = &text[..dashes];
        let after = text[dashes..]
            .trim_start_matches(' ')
            .strip_prefix("BEGIN ")?;
        let label_len = after
            .find(|ch: char| !(ch.is_ascii_uppercase() || ch == ' '))
            .unwrap_or(after.len());
        let label = after[..label_len].trim_end_matches(' ');
        if label.is_empty() {
            return None;
        }
        let body_and_rest = after[label_len..].strip_prefix(dash_run)?;
        let end_marker = format!("END {label}");
        let mut search_from = 0;
        while let Some(found) = body_and_rest[search_from..].find(&end_marker) {
            let marker_start = search_from + found;
            search_from = marker_start + 1;
            // Before the marker: the dashes, then optional spaces.
            let before = body_and_rest[..marker_start].trim_end_matches(' ');
            let Some(body) = before.strip_suffix(dash_run) else {
                continue;
            };
            // After it: optional spaces, then the dashes.
            let after_marker =
                body_and_rest[marker_start + end_marker.len()..].trim_start_matches(' ');
            let Some(rest) = after_marker.strip_prefix(dash_run) else {
                continue;
            };
            if body.is_empty() {
                return None;
            }
            return Some(PemBlock { label, body, rest });
        }
        None
    }
}

/// The decoded body of a block.
#[derive(Debug)]
struct BlockContents {
    /// Whether a header line (`Proc-Type: 4,ENCRYPTED`) mentions `ENCRYPTED`.
    headers_mention_encrypted: bool,
    /// The base64-decoded body.
    binary: Vec<u8>,
}

impl BlockContents {
    /// Separates the `Name: value` headers (with `\` continuation lines) from the base64 text
    /// and decodes the latter.
    fn read(body: &str) -> Result<BlockContents, String> {
        let mut headers_mention_encrypted = false;
        let mut base64_text = String::new();
        let mut continues = false;
        for line in body.lines() {
            let line = line.trim();
            if line.is_empty() {
                continue;
            }
            if continues || is_header_line(line) {
                continues = line.ends_with('\\');
                headers_mention_encrypted |= line.contains("ENCRYPTED");
                continue;
            }
            base64_text.extend(line.chars().filter(|ch| !ch.is_ascii_whitespace()));
        }
        match BASE64.decode(base64_text.as_bytes()) {
            Ok(binary) if !binary.is_empty() => Ok(BlockContents {
                headers_mention_encrypted,
                binary,
            }),
            _ => Err("Invalid base64-encoded data".to_owned()),
        }
    }
}

/// Whether a trimmed body line is a `Name: value` header: a colon after at least one character
/// and followed by at least one.
fn is_header_line(line: &str) -> bool {
    line.char_indices()
        .any(|(index, ch)| ch == ':' && index > 0 && index + 1 < line.len())
}

/// The cipher name of an OpenSSH private key (`none` when it is not encrypted).
///
/// The binary is `openssh-key-v1\0`, then the cipher name as a big-endian `u32` length and
/// that many bytes.
fn openssh_cipher(binary: &[u8]) -> Result<String, String> {
    let rest = binary
        .strip_prefix(OPENSSH_MAGIC)
        .ok_or_else(|| "Invalid private key: not an OpenSSH private key".to_owned())?;
    let truncated = || "Invalid private key: truncated OpenSSH key data".to_owned();
    let (length, rest) = rest.split_first_chunk::<4>().ok_or_else(truncated)?;
    let length = usize::try_from(u32::from_be_bytes(*length)).map_err(|_| truncated())?;
    let name = rest.get(..length).ok_or_else(truncated)?;
    String::from_utf8(name.to_vec())
        .map_err(|_| "Invalid private key: malformed OpenSSH cipher name".to_owned())
}

#[cfg(test)]
pub(crate) mod test_keys {
    //! Throw-away keys generated for the tests only (ssh-keygen / openssl; the passphrase of
    //! the encrypted ones is "secret"). They protect nothing.

    pub(crate) const ED25519_PLAIN: &str = "-----BEGIN OPENSSH PRIVATE KEY-----
b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW
QyNTUxOQAAACCQNhpowtjIItXx/OQVZlgxBSP2EwDxzAtHbA74wsdzgQAAAIhtEVVrbRFV
awAAAAtzc2gtZWQyNTUxOQAAACCQNhpowtjIItXx/OQVZlgxBSP2EwDxzAtHbA74wsdzgQ
AAAEAoQqGK8n780RfXm4dMbacgas8I7RD0JCzwBzkvNWYJS5A2GmjC2Mgi1fH85BVmWDEF
I/YTAPHMC0dsDvjCx3OBAAAABHRlc3QB
-----END OPENSSH PRIVATE KEY-----
";

    pub(crate) const ED25519_ENCRYPTED: &str = "-----BEGIN OPENSSH PRIVATE KEY-----
b3BlbnNzaC1rZXktdjEAAAAACmFlczI1Ni1jdHIAAAAGYmNyeXB0AAAAGAAAABAomg63Lv
1iFdmUl1ZFYsnmAAAAEAAAAAEAAAAzAAAAC3NzaC1lZDI1NTE5AAAAIHoA7E5DY1+Uv/Nw
Fw86YIDa8jaETXvfqDVIh+6NQJpuAAAAkFKmmcZ46ppxTU4rel8HS9imNM2D8aPCRFBVn5
LxTtaO4y2W75XfLYY2P+pgCr1+wM+MFe4z8ioUopqUfQV9c1V3OkLm7xdGQlgK3pIdPRpH
zwqQ+SvlN4yB9l7xqldaw7dvs/BncbDVIfctTX71h4pHmnH/cUYc8ELWTWu7FIfZ4tj28/
/c98/11W966HiODQ==
-----END OPENSSH PRIVATE KEY-----
";

    pub(crate) const RSA_PLAIN: &str = "-----BEGIN RSA PRIVATE KEY-----
MIICXgIBAAKBgQDq4sdFfJesx7l+ThtZNXk4B7d59kn+W1rkWi/0awGL0iLHO4Rz
EKFamr1D1Sp6FEnnVbI1EP4LbyfyUFgUPkcauE9AKP+oerv0fbdFCTh2NH5E2SRM
7j7Z7sQn+5DfvJw12aHwRcm+TeVGa6uTUhRmOc3XO5lR9Isa2oYPDdc7GQIDAQAB
AoGBAINiCjix8l0w8m7V3bJOmNlgZ56OxuDB1Nt6HuzGlfzRs6ZhgjqiiL6XY1p3
9+SFSLlfU+ke8hsPN/bwPfREyZv0PH5gRYXUYt89DFy6CL6t+MhqFXkFBTzHy5IP
0gMCk91UyhN0dGx/ESoWEkwEiTm29f56gFWeHptqi21lNSshAkEA9fSy5vqZ/yLp
u/E/Np55M9w551ytaGDyVmNRWJzQPPw7w3lVjr6P9HJtGZwTrLoQ0r80h8xk4J2/
DZ+T52UzBQJBAPR6WaifIAo1lgkpTSKUc9Bv1DO0WuLND9rNddYAg2Reitz+/sGo
ziYRDu5VfH9eOodkhazzdcTi/5UnAjvlDAUCQQDk9H/hcmEOVyK7uIx+vLDY7OXe
ELC/3JdagaPE2F0kmCzN/1H8yjnZdPdIgrjx7lcgx6sPyt4RFec2uFkHa3Y9AkB1
d0gXFgXuAdtKIZcXU17mOqUqBrFYohDJH8lLfsmi8y4jiz3azQHoFnAnIdoE1MCo
hysXc48Vf8Av6SNQpfgFAkEAxBYaWQMUPufqIuwq4esgcWL/qsRHdQw527dMphwt
/n0bEwIVZrnxw5LbfvU9pECXqVTlSJQT4/cGLGNIJrWU/w==
-----END RSA PRIVATE KEY-----
";

    pub(crate) const RSA_ENCRYPTED: &str = "-----BEGIN RSA PRIVATE KEY-----
Proc-Type: 4,ENCRYPTED
DEK-Info: AES-128-CBC,BD91EAD6691A96272F74605CACFAAC28

NVl61R2X0kswsst0kAfXsI6yHtsObohli0ObL441TLSlFTN+DqFMrgpumeOu91dm
6j5g0WeZhHcKTRDETmL3RWffkgqkJHyztTUPEoeVmyHTkoxBQWnBBiSGb1ZpQaB5
xueS6C/OgmXadEMCVBBjPbfr+GnVVgAcF94HFOSB0TNRycMJXklEBLROom0ulogu
3t7UAWel65FRihAk1NqueW/iqZPR9lVqj1m0ydWIJWGq3aK0CR8nlx1U7E/iA4I7
2ZNxvLeyKtBdvChmHf8cK70QA7LupN7CZKGWCH9H5bQQImBwmgZ9drWIzFM1n5h5
fnTgdRjp1lq0LNWnZ2wyVxd7jlt9iRTEFVw3s05x6Ucf7JWXXDY/3PbQkWDOZlnL
0n1iMbk0Gzqe+L2Xnf9QQigYUoWKi6njY1zOim1gsV4P3BuONAZvQiBLu2PuPnWL
dCm+DJPndlGLCdkrBzs8WAM2KZCe9a88Gagjv+pikp1O3JrlSvnydDeGIhDfP+Np
X1grgDDUeP++bM4/WE5xktC3k+N7ePRIub5E9+rSA5KPOnTyO942cVHRzU46OUAk
7DuRVczr7q2Cb3+9xhfvz/X6jWtIqwK0R/T3xX2Gn4bY+wMYwaFEWjXGEgGtauDY
n1f9smpSPoo1lEjyxAIddqcJvq2I/V9Y+f7QHnWzjZLdkb/BtzAWWPFma9skHd26
oNlCLQznqlAJ+LeWDXcYede2+dd+MkfFkXzIKA8yD47hbdnKamxQJNIElClqJAXP
qP3FJrGuzsERgwQj9fJp5gALTK1eIQJxlS8Vljs+Vb44YyTspprPHl5k8or4YF6V
-----END RSA PRIVATE KEY-----
";

    pub(crate) const PKCS8_PLAIN: &str = "-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgK257fTJAp8z4rbbZ
vV04n2c0vuHA0lEV5+zY/1pOj0WhRANCAATPYm+LCzB+ya7QpKj5+AmTfyl+tqUU
F/ZA1F1OszPq6pSsmjXIxNR3GNeLnXQ3slEWGzPRKp4v38z6fh39wrqe
-----END PRIVATE KEY-----
";

    pub(crate) const PKCS8_ENCRYPTED: &str = "-----BEGIN ENCRYPTED PRIVATE KEY-----
MIHsMFcGCSqGSIb3DQEFDTBKMCkGCSqGSIb3DQEFDDAcBAjcRBAi83X3XAICCAAw
DAYIKoZIhvcNAgkFADAdBglghkgBZQMEASoEEIklbkn2wkNBFKTH4oaTcv0EgZCl
Mx2QupssFjzWI7amZRs37+t/CjBgjQhXtZBFzw5GqBU8y9RXQ2uuNjFV0tHapQf6
xs0Vwoxpqa2aAWCl71p+DZntN96fkBFqefN6lR2tNC2l5GU3ebeDbO3Ryx9C/Shq
NB3RpdF0TcrJvSFEdinU1fkE+uzMMk1DHTCEycJMD3QY8MucCZwsyMz7qNTLKbc=
-----END ENCRYPTED PRIVATE KEY-----
";

    pub(crate) const CERTIFICATE: &str = "-----BEGIN CERTIFICATE-----
MIIBfDCCASGgAwIBAgIUY7hBaoyKbo2v+GoXnacknHFxKUcwCgYIKoZIzj0EAwIw
EzERMA8GA1UEAwwIYWNzLXRlc3QwHhcNMjYxMTIzMTEyNTM0WhcNMzYxMTIwMTEy
NTM0WjATMREwDwYDVQQDDAhhY3MtdGVzdDBZMBMGByqGSM49AgEGCCqGSM49AwEH
A0IABM9ib4sLMH7JrtCkqPn4CZN/KX62pRQX9kDUXU6zM+rqlKyaNcjE1HcY14ud
dDeyURYbM9Eqni/fzPp+Hf3Cup6jUzBRMB0GA1UdDgQWBBSUOwrGQTuOGgRw8AYi
5NumeGtchzAfBgNVHSMEGDAWgBSUOwrGQTuOGgRw8AYi5NumeGtchzAPBgNVHRMB
Af8EBTADAQH/MAoGCCqGSM49BAMCA0kAMEYCIQCEn0IchFHCBa/TUJpNQ+azZISN
RpP1BrbycPaCzDL9MQIhAIdnI3TeuZhNF1hbEna84636IZG8Phg9NqNo6C4F8xIC
-----END CERTIFICATE-----
";
}

#[cfg(test)]
mod tests {
    use super::test_keys::*;
    use super::*;

    fn plain() -> Result<KeyInfo, String> {
        Ok(KeyInfo { encrypted: false })
    }

    fn encrypted() -> Result<KeyInfo, String> {
        Ok(KeyInfo { encrypted: true })
    }

    #[test]
    fn empty_and_placeholder_pass() {
        assert_eq!(check_private_key(""), plain());
        assert_eq!(check_private_key("$encrypted$"), plain());
    }

    #[test]
    fn real_keys_are_accepted_and_classified() {
        assert_eq!(check_private_key(ED25519_PLAIN), plain());
        assert_eq!(check_private_key(ED25519_ENCRYPTED), encrypted());
        assert_eq!(check_private_key(RSA_PLAIN), plain());
        assert_eq!(check_private_key(RSA_ENCRYPTED), encrypted());
        assert_eq!(check_private_key(PKCS8_PLAIN), plain());
        assert_eq!(check_private_key(PKCS8_ENCRYPTED), encrypted());
    }

    #[test]
    fn surrounding_white_space_and_crlf_are_accepted() {
        let padded = format!("\n\n  {}\n\n", ED25519_PLAIN.replace('\n', "\r\n"));
        assert_eq!(check_private_key(&padded), plain());
    }

    #[test]
    fn escaped_equals_signs_are_read_as_equals() {
        let escaped = ED25519_ENCRYPTED.replace('=', "\\u003d");
        assert!(escaped.contains("\\u003d"));
        assert_eq!(check_private_key(&escaped), encrypted());
    }

    #[test]
    fn certificates_may_accompany_a_key() {
        let bundle = format!("{CERTIFICATE}{PKCS8_PLAIN}");
        assert_eq!(check_private_key(&bundle), plain());
        let bundle = format!("{ED25519_PLAIN}\n{RSA_ENCRYPTED}");
        assert_eq!(check_private_key(&bundle), encrypted());
    }

    #[test]
    fn certificates_alone_are_not_enough() {
        assert_eq!(
            check_private_key(CERTIFICATE),
            Err("At least one private key is required.".to_owned())
        );
        let public = "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n";
        assert_eq!(
            check_private_key(public),
            Err("At least one private key is required.".to_owned())
        );
    }

    #[test]
    fn garbage_is_quoted_in_the_message() {
        assert_eq!(
            check_private_key("invalid-key"),
            Err("Invalid certificate or key: invalid-key...".to_owned())
        );
        let long = "x".repeat(300);
        assert_eq!(
            check_private_key(&long),
            Err(format!(
                "Invalid certificate or key: {}...",
                "x".repeat(100)
            ))
        );
        // After a valid block, the message quotes what follows it.
        let trailing = format!("{ED25519_PLAIN}trailing junk");
        assert_eq!(
            check_private_key(&trailing),
            Err("Invalid certificate or key: trailing junk...".to_owned())
        );
    }

    #[test]
    fn broken_markers_are_invalid() {
        let cases = [
            "-----BEGIN RSA PRIVATE KEY-----\nAAAA\n",
            "---BEGIN RSA PRIVATE KEY---\nAAAA\n---END RSA PRIVATE KEY---\n",
            "-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END DSA PRIVATE KEY-----\n",
            "-----BEGIN RSA PRIVATE KEY----------END RSA PRIVATE KEY-----\n",
            "-----BEGIN -----\nAAAA\n----- END -----\n",
            "-----BEGIN rsa key-----\nAAAA\n-----END rsa key-----\n",
        ];
        for case in cases {
            let error = check_private_key(case).expect_err(case);
            assert!(
                error.starts_with("Invalid certificate or key: "),
                "{case}: {error}"
            );
        }
    }

    #[test]
    fn unsupported_labels() {
        assert_eq!(
            check_private_key(
                "-----BEGIN FOO PRIVATE KEY-----\nAAAA\n-----END FOO PRIVATE KEY-----"
            ),
            Err("Invalid private key: unsupported type \"FOO\"".to_owned())
        );
        assert_eq!(
            check_private_key("-----BEGIN DH PARAMETERS-----\nAAAA\n-----END DH PARAMETERS-----"),
            Err("Unsupported PEM object type: \"DH PARAMETERS\"".to_owned())
        );
    }

    #[test]
    fn bad_base64_is_reported() {
        for body in ["!!!!", "AAA", "A", " \n "] {
            let key =
                format!("-----BEGIN RSA PRIVATE KEY-----\n{body}\n-----END RSA PRIVATE KEY-----");
            assert_eq!(
                check_private_key(&key),
                Err("Invalid base64-encoded data".to_owned()),
                "{body:?}"
            );
        }
    }

    #[test]
    fn proc_type_header_marks_encryption() {
        let key = "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,00\n\nAAAA\n-----END RSA PRIVATE KEY-----";
        assert_eq!(check_private_key(key), encrypted());
        let continued = "-----BEGIN RSA PRIVATE KEY-----\nComment: first \\\n  ENCRYPTED\n\nAAAA\n-----END RSA PRIVATE KEY-----";
        assert_eq!(check_private_key(continued), encrypted());
        let plain_headers = "-----BEGIN RSA PRIVATE KEY-----\nComment: hello\n\nAAAA\n-----END RSA PRIVATE KEY-----";
        assert_eq!(check_private_key(plain_headers), plain());
    }

    fn openssh_block(binary: &[u8]) -> String {
        format!(
            "-----BEGIN OPENSSH PRIVATE KEY-----\n{}\n-----END OPENSSH PRIVATE KEY-----\n",
            BASE64.encode(binary)
        )
    }

    #[test]
    fn malformed_openssh_keys_are_errors() {
        let mut binary = OPENSSH_MAGIC.to_vec();
        assert_eq!(
            check_private_key(&openssh_block(&binary)),
            Err("Invalid private key: truncated OpenSSH key data".to_owned())
        );
        binary.extend_from_slice(&[0xff, 0xff, 0xff, 0xff, b'n']);
        assert_eq!(
            check_private_key(&openssh_block(&binary)),
            Err("Invalid private key: truncated OpenSSH key data".to_owned())
        );
        assert_eq!(
            check_private_key(&openssh_block(b"not-openssh")),
            Err("Invalid private key: not an OpenSSH private key".to_owned())
        );
        let mut bad_name = OPENSSH_MAGIC.to_vec();
        bad_name.extend_from_slice(&[0, 0, 0, 2, 0xff, 0xfe]);
        assert_eq!(
            check_private_key(&openssh_block(&bad_name)),
            Err("Invalid private key: malformed OpenSSH cipher name".to_owned())
        );
    }

    #[test]
    fn openssh_cipher_names_decide_encryption() {
        let mut none = OPENSSH_MAGIC.to_vec();
        none.extend_from_slice(&[0, 0, 0, 4]);
        none.extend_from_slice(b"none");
        assert_eq!(check_private_key(&openssh_block(&none)), plain());
        let mut aes = OPENSSH_MAGIC.to_vec();
        aes.extend_from_slice(&[0, 0, 0, 10]);
        aes.extend_from_slice(b"aes256-ctr");
        assert_eq!(check_private_key(&openssh_block(&aes)), encrypted());
    }
}
