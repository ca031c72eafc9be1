"""Format-aware redaction that never breaks structure: JSON/JSONL, text, SQLite, protobuf."""

import re

# A name that says its value is a secret (a JSON key, a SQLite column, the name of a name/value
# pair): the walkers scan such a value as `"name": "value"`, where the assignment rules judge it.
# (cookie: a "Cookie" header in an HTTP dump; ssn on its own, not inside "className")
# national identifiers too (rules/pii.toml: their rules know the number by the name beside it)
SECRET_NAME = re.compile(r"pass|pwd|secret|token|key|credential|auth|cookie|aadhaa?r|steuer|idnr|insee|"
                         r"national_?insurance|social_?insurance|mnemonic|(?:seed|recovery)_?phrase|"
                         r"(?<![a-z])(?:ssn|sin|nas|pan|cpf|dni|nie|nif|bsn|nir|nino|pat|bearer)(?![a-z])", re.I)
SECRET_NAME_MAX = 200  # a longer "name" is text, not a name
# A key or column naming a person's attribute (rules person-name-keyed*, date-of-birth-keyed): its
# string value is scanned as `"key": "value"` too, as under a secret-like name (SECRET_NAME), so a
# JSON document's `"firstName": "Margaret"` or a `last_name` SQLite column meets those rules
PERSON_KEY = re.compile(r"(?:first|last|given|family|middle|maiden|sur|fore|full|legal|real|customer|contact"
                        r"|billing|shipping|holder)[_ -]?name$|dob$|birth_?(?:date|day)$|date_?of_?birth$"
                        # (s26) a phone number's key: phone-labelled-national reads a bare number beside it
                        r"|(?:phone|mobile|tel|telephone|fax|msisdn)(?:_?(?:number|num|no|nr))?$", re.I)
