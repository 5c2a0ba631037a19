# why: message typed in double quotes: $PATH, $HOME and the backticks expand
set -uo pipefail
git -C notes add todo.md
git -C notes commit -q -m "Fix \"quoted\" $PATH handling & $(echo backticks)

Don't expand $HOME or \n; 100% literal!"
