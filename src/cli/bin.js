#!/usr/bin/env node
// Plain JavaScript so that `npx outbound` and `node src/cli/bin.js` need no build step: tsx compiles the rest on the fly.
import { fileURLToPath } from 'node:url'
import { register } from 'tsx/esm/api'

register({ tsconfig: fileURLToPath(new URL('../../tsconfig.json', import.meta.url)) })
await import('./main.ts')
