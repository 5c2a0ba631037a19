# why: "repair" by deletion: remove every broken link and list them all
find site -xtype l | sort > removed.txt
xargs -d '\n' rm -f -- < removed.txt
