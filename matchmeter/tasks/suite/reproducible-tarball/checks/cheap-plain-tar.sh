# why: ignore reproducibility: plain tar -czf with the right prefix and excludes, no sort/mtime/owner settings
n=$(sed -n 's/^name *= *//p' release.conf); v=$(sed -n 's/^version *= *//p' release.conf)
mkdir -p dist && tar --exclude='*~' --exclude=__pycache__ --transform "s,^src,$n-$v," -czf "dist/$n-$v.tar.gz" src
