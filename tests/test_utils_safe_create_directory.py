"""``depyf.utils.safe_create_directory``: make a directory, existing is fine."""
import pytest

from depyf.utils import safe_create_directory


def test_makes_nested_directories(tmp_path):
    target = tmp_path / "a" / "b"
    safe_create_directory(str(target))
    assert target.is_dir()


def test_an_existing_directory_is_fine(tmp_path):
    safe_create_directory(str(tmp_path))
    safe_create_directory(str(tmp_path))
    assert tmp_path.is_dir()


def test_a_file_in_the_way_is_an_error(tmp_path):
    blocker = tmp_path / "taken"
    blocker.write_text("not a directory")
    with pytest.raises(OSError):
        safe_create_directory(str(blocker))
