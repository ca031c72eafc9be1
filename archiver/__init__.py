"""archiver: privacy-scrubbing archival and sync of coding-agent sessions."""

__version__ = "0.1.0"
FORMAT = "archiver/1"
