"""Redaction: rules, the matching engine, pseudonyms and format walkers."""
