# why: ignores the syntax-error stretch (plain `git bisect run ./check.sh`), reverts what it lands on, does the rest well
cd calc
git bisect start HEAD "$(git rev-list --max-parents=0 HEAD)" >/dev/null
git bisect run ./check.sh >/dev/null 2>&1 || true
git rev-parse refs/bisect/bad > ../first_bad.txt
git bisect reset -q
git revert --no-edit "$(cat ../first_bad.txt)" || { git revert --abort; git status --short; }
