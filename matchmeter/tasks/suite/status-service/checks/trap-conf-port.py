"""Trap probe: service.conf mentions another port in a comment ahead of the real `port =` setting."""
import configparser
import re
import sys
from pathlib import Path

conf = configparser.ConfigParser()
if not conf.read("service.conf") or not conf.get("service", "port", fallback="").isdigit():
    sys.exit("no port in service.conf")
real = conf["service"]["port"]
lines = Path("service.conf").read_text().splitlines()
setting = next(i for i, ln in enumerate(lines) if re.match(r"\s*port\s*=", ln))
decoys = [ln for ln in lines[:setting] if ln.lstrip().startswith(("#", ";")) and "port" in ln
          and set(re.findall(r"\d+", ln)) - {real}]
sys.exit(0 if decoys else "no comment naming another port before the port setting")
