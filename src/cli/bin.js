#!/usr/bin/env node
// Plain JavaScript so that `npx outbound` and `node src/cli/bin.js` work on a fresh clone: dist/ is
// built (or rebuilt after a change of the sources) before the bundled CLI runs (src/build.mjs).
import { ensureBuilt } from '../build.mjs'

ensureBuilt()
await import('../../dist/bin/cli.js')
