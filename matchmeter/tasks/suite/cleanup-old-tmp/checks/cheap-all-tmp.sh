# why: ignore the age: delete every .tmp file and list them
find build -type f -name '*.tmp' -print -delete | sort > deleted.txt
