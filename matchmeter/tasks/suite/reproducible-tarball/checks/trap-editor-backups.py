"""Trap probe: src/ holds editor backups (*~) beside the files they back up."""
import sys
from pathlib import Path

backups = [p for p in Path("src").rglob("*~") if p.is_file() and p.with_name(p.name[:-1]).is_file()] if Path("src").is_dir() else []
sys.exit(0 if backups else "src/ has no *~ editor backup")
