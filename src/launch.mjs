#!/usr/bin/env node
// `npm run sandbox` / `npm run emulator`: the bundle of that name (dist/bin/), built first when stale.
import { ensureBuilt } from './build.mjs'

const name = process.argv[2]
if (name !== 'sandbox' && name !== 'emulator') throw new Error('usage: node src/launch.mjs sandbox|emulator')
ensureBuilt()
await import(`../dist/bin/${name}.js`)
