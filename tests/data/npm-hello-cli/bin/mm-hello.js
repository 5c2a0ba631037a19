#!/usr/bin/env node
// --version prints the package's version; --copy SRC DST copies a file (so a trial of the copy-file test
// task can be solved through it); otherwise it prints the Node it runs on and its arguments.
const fs = require("fs");
const args = process.argv.slice(2);
if (args[0] === "--version") {
  console.log(`mm-hello ${require("../package.json").version}`);
} else if (args[0] === "--copy") {
  fs.copyFileSync(args[1], args[2]);
  console.log(`copied ${args[1]} to ${args[2]} on node ${process.version}`);
} else {
  console.log(`node ${process.version} ${process.execPath} args=${JSON.stringify(args)}`);
}
