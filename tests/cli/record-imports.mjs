// `node --import ./tests/cli/record-imports.mjs …`: appends the URL of every module the process
// imports (ES modules and the CommonJS they require through import) to the file named by
// RECORD_IMPORTS, one a line: what a command loads, seen from outside without a debug mode of its own.
import { register } from 'node:module'

register('./record-imports-hooks.mjs', import.meta.url, { data: { file: process.env.RECORD_IMPORTS } })
