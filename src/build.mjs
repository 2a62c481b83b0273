#!/usr/bin/env node
// `npm run build` (and `npm start` when needed, src/start.mjs): compiles the server to dist/ with tsc
// and makes the embedded database's template (dist/pgdata-template: an initialised, migrated, empty
// cluster). Plain JavaScript so it runs before anything is compiled. Does nothing when nothing it
// builds from changed since the last build.
import { execFileSync } from 'node:child_process'
import { cpSync, existsSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('../', import.meta.url))
const dist = join(root, 'dist')
const stamp = join(dist, '.built')
const INPUTS = ['src', 'plugins', 'routes', 'db', 'tsconfig.json', 'tsconfig.build.json', 'package-lock.json']

function newest (path) {
  const stat = statSync(path)
  if (!stat.isDirectory()) return stat.mtimeMs
  return Math.max(stat.mtimeMs, ...readdirSync(path).map(name => newest(join(path, name))))
}

/** Whether dist/ is older than what it is built from (a stat per source file: a few ms). */
export function stale () {
  const changed = Math.max(...INPUTS.map(input => newest(join(root, input))))
  return !existsSync(stamp) || statSync(stamp).mtimeMs < changed
}

if (import.meta.url === `file://${process.argv[1]}` && stale()) await build()

async function build () {
  console.error('outbound: building dist/ (once after each change; takes a few seconds)')
  rmSync(dist, { recursive: true, force: true })
  execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' })
  // what the compiled code reads from beside itself
  cpSync(join(root, 'db/migrations'), join(dist, 'db/migrations'), { recursive: true })
  cpSync(join(root, 'src/dashboard/assets'), join(dist, 'src/dashboard/assets'), { recursive: true })

  // The template, in a scratch DATA_DIR; this process exits afterwards, and with it initdb's memory.
  const scratch = join(dist, '.template')
  const { openDatabase } = await import(join(dist, 'db/client.js'))
  const database = openDatabase(undefined, scratch)
  await database.migrate()
  await database.close()
  renameSync(join(scratch, 'pgdata'), join(dist, 'pgdata-template'))
  rmSync(scratch, { recursive: true, force: true })
  writeFileSync(stamp, new Date().toISOString() + '\n')
}
