# why: ignores what only looks numeric (int(), then float(), accept it), does the rest well
python3 - <<'PY'
import configparser, json, re
def typed(v):
    if v in ("true", "false"):
        return v == "true"
    for conv in (int, float):
        try:
            return conv(v)
        except ValueError:
            pass
    return v
ini = configparser.ConfigParser(interpolation=None)
ini.optionxform = str
ini.read("conf/app.ini")
with open("conf/app.json", "w") as f:
    json.dump({s: {k: typed(v) for k, v in ini[s].items()} for s in ini.sections()}, f, indent=2)
PY
