// Two fixes to postgres.js 3.4.9 that are not released yet, applied by `npm ci` (postinstall).
// Each is skipped where its text is gone (the release may have fixed it); applied twice, it does nothing.
import { readFileSync, writeFileSync, existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const PATCHES = [
  {
    // It writes small buffers from a setImmediate; when the connection closes before it fires (a
    // database that blinks, a proxy that cuts), `socket` is null and the throw escapes every await
    // as an uncaught exception that takes the process down (porsager/postgres#1154, #1208; the fix
    // of #1209). The pending write settles its queries with CONNECTION_CLOSED, which the fault
    // classification retries.
    name: 'the guarded nextWrite',
    from: `  function nextWrite(fn) {
    const x = socket.write(chunk, fn)`,
    to: `  function nextWrite(fn) {
    if (!socket) { // patched by outbound (scripts/patch-postgres.mjs)
      chunk = nextWriteTimer = null
      error(Errors.connection('CONNECTION_CLOSED', options))
      return false
    }
    const x = socket.write(chunk, fn)`
  },
  {
    // A transaction's BEGIN takes its connection for the transaction in `onexecute`, the last term
    // of the test of whether more statements may follow on the socket: with `max_pipeline: 0`
    // (db/client.ts, behind a transaction pooler) it never ran, and every transaction failed with
    // UNSAFE_TRANSACTION (porsager/postgres#1210, the fix of #1211). It runs whenever the BEGIN is
    // written; the BEGIN's connection still takes no other statement until the BEGIN's answer.
    name: 'onexecute whatever max_pipeline is',
    from: `      build(q)
      return write(toBuffer(q))
        && !q.describeFirst
        && !q.cursorFn
        && sent.length < max_pipeline
        && (!q.options.onexecute || q.options.onexecute(connection))`,
    to: `      build(q)
      const written = write(toBuffer(q)) // patched by outbound (scripts/patch-postgres.mjs)
      q.options.onexecute && q.options.onexecute(connection)
      return written
        && !q.describeFirst
        && !q.cursorFn
        && sent.length < max_pipeline
        && !q.options.onexecute`
  }
]

const root = join(dirname(fileURLToPath(import.meta.url)), '..', 'node_modules', 'postgres')
if (!existsSync(join(root, 'package.json'))) process.exit(0) // not installed: nothing to patch
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
for (const file of ['src/connection.js', 'cjs/src/connection.js', 'cf/src/connection.js']) {
  const path = join(root, file)
  if (!existsSync(path)) continue
  let source = readFileSync(path, 'utf8')
  for (const patch of PATCHES) {
    if (source.includes(patch.to)) continue
    if (!source.includes(patch.from)) {
      console.warn(`postgres ${version}: ${file} does not have the text ${patch.name} replaces; the patch is left out (the release may have fixed it)`)
      continue
    }
    source = source.replace(patch.from, patch.to)
  }
  writeFileSync(path, source)
}
