# why: half the settings: sorted, gzip -n and the epoch mtime, but the builder's own owner and group
n=$(sed -n 's/^name *= *//p' release.conf); v=$(sed -n 's/^version *= *//p' release.conf); e=$(sed -n 's/^source_date_epoch *= *//p' release.conf)
mkdir -p dist && tar --sort=name --mtime="@$e" --owner=4242 --group=4242 --exclude='*~' --exclude=__pycache__ --transform "s,^src,$n-$v," -cf - src | gzip -n > "dist/$n-$v.tar.gz"
