#!/usr/bin/env node
import('../dist/cli/main.js').then((m) => m.main(process.argv.slice(2)));
