"""Format-aware redaction that never breaks structure: JSON/JSONL, text, SQLite, protobuf."""
