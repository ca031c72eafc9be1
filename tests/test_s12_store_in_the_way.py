"""A regular file where the file:// store folder would be created: one StoreError naming it, not a bare OSError."""
import pytest
from pathlib import Path
from archiver.store.local import LocalStore
from archiver.store.base import StoreError
def test_file_in_the_way(tmp_path):
    (tmp_path / "f").write_text("x")
    with pytest.raises(StoreError, match=r"^create the store folder .*/f/store: Not a directory$"):
        LocalStore(tmp_path / "f" / "store")
