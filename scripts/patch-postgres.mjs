// postgres.js 3.4.9 writes small buffers from a setImmediate; when the connection closes before it
// fires (a database that blinks, a proxy that cuts), `socket` is null and the throw escapes every
// await as an uncaught exception that takes the process down (porsager/postgres#1154, #1208; the
// fix of #1209 is not released). Until it is, `npm ci` applies the same guard: the pending write
// settles its queries with CONNECTION_CLOSED, which the fault classification retries.
import { readFileSync, writeFileSync, existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const UNGUARDED = `  function nextWrite(fn) {
    const x = socket.write(chunk, fn)`
const GUARDED = `  function nextWrite(fn) {
    if (!socket) { // patched by outbound (scripts/patch-postgres.mjs)
      chunk = nextWriteTimer = null
      error(Errors.connection('CONNECTION_CLOSED', options))
      return false
    }
    const x = socket.write(chunk, fn)`

const root = join(dirname(fileURLToPath(import.meta.url)), '..', 'node_modules', 'postgres')
if (!existsSync(join(root, 'package.json'))) process.exit(0) // not installed: nothing to patch
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
for (const file of ['src/connection.js', 'cjs/src/connection.js', 'cf/src/connection.js']) {
  const path = join(root, file)
  if (!existsSync(path)) continue
  const source = readFileSync(path, 'utf8')
  if (source.includes(GUARDED)) continue
  if (!source.includes(UNGUARDED)) {
    console.warn(`postgres ${version}: ${file} has no unguarded nextWrite; the patch is left out (the release may have fixed it)`)
    continue
  }
  writeFileSync(path, source.replace(UNGUARDED, GUARDED))
}
