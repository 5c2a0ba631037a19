# why: ignore what does not apply: patch -f, then delete the .rej/.orig leftovers
cd project && patch -p1 -f < ../patches/feature.patch > /dev/null 2>&1
find . \( -name '*.rej' -o -name '*.orig' \) -delete
