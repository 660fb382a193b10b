"""The command finds the app it serves through package resources, never by importing the
app's code (its imports are held by tests/test_architecture.py)."""

from s3vm_cli.commands import app_folder


def test_the_command_finds_the_app_it_serves():
    folder = app_folder()
    assert folder is not None and (folder / "app.py").is_file()
    assert (folder / "pages").is_dir() and (folder / ".streamlit" / "config.toml").is_file()
