#!/usr/bin/env node
// `npm run build`, and every launcher when dist/ is stale (`npm start`, `npm run sandbox`, `npm run
// emulator`, `outbound`: ensureBuilt() below, in a process of its own so that initdb's memory for the
// database template is not kept by the command). Plain JavaScript so it runs before anything is built.
//
// dist/ holds:
// - the server, file for file (esbuild transpiles each .ts as tsx does in the tests; type checking is
//   `npm run typecheck`'s job): `npm start` and `npm run start:cluster` run dist/src/server.js;
// - dist/bin/{cli,sandbox,emulator}.js: one bundle per operator command, split into chunks so that
//   a command loads only the chunks it imports (the CLI's commands are lazy imports: `keys list`
//   never loads Fastify, the dashboard, the pacer or the upstream client); the sandbox's and the
//   emulator's carry their packages too (one file read, not several hundred: compile());
// - dist/pgdata-template: an initialised, migrated, empty embedded database every new DATA_DIR
//   starts as a copy of, and dist/pgdata-template.tar, the same as a tarball that an in-memory
//   database loads (both kept from the last build while the migrations are unchanged).
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { closeSync, cpSync, existsSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('../', import.meta.url))
const dist = join(root, 'dist')
const stamp = join(dist, '.built')
const lockFile = join(root, '.dist-build.lock')
const SOURCES = ['src', 'plugins', 'routes', 'db']
// node_modules/.package-lock.json: npm rewrites it at each install, and the bundles carry packages' code
const INPUTS = [...SOURCES, 'tsconfig.json', 'package.json', 'package-lock.json', 'node_modules/.package-lock.json']
// the bundles of the operator commands (dist/bin/<name>.js)
const BUNDLES = { cli: 'src/cli/main.ts', sandbox: 'src/sandbox/main.ts', emulator: 'src/sandbox/emulator-cli.ts' }
// the packages the sandbox's and the emulator's bundles leave in node_modules (see compile())
const UNBUNDLED = ['@electric-sql/pglite', '@fastify/swagger', '@fastify/swagger-ui', 'esbuild', 'tsx', 'typescript']

function newest (path) {
  const stat = statSync(path, { throwIfNoEntry: false })
  if (!stat) return 0
  if (!stat.isDirectory()) return stat.mtimeMs
  // a directory's own mtime changes when a file in it is added, removed or renamed
  return Math.max(stat.mtimeMs, ...readdirSync(path).map(name => newest(join(path, name))))
}

/** Whether dist/ is missing or older than anything it is built from (a stat per source file: a few ms). */
export function stale () {
  const built = statSync(stamp, { throwIfNoEntry: false })
  return !built || built.mtimeMs < Math.max(...INPUTS.map(input => newest(join(root, input))))
}

/**
 * Builds dist/ when stale, in a child process whose output goes to stderr (a command's stdout is its
 * answer). Where it cannot build (a read-only install), says what to run instead.
 */
export function ensureBuilt () {
  if (!stale()) return
  try {
    execFileSync(process.execPath, [fileURLToPath(import.meta.url)], { stdio: ['ignore', 2, 2] })
  } catch {
    console.error(`outbound: dist/ is older than the sources and could not be rebuilt here: run \`npm run build\` in ${root}`)
    process.exit(1)
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await withBuildLock(async () => { if (stale()) await build() })

async function build () {
  const started = new Date()
  console.error('outbound: building dist/ (once after each change of the sources)')
  const stage = join(root, `.dist-build-${process.pid}`)
  rmSync(stage, { recursive: true, force: true })
  try {
    await compile(stage)
    cpSync(join(root, 'db/migrations'), join(stage, 'db/migrations'), { recursive: true })
    cpSync(join(root, 'src/dashboard/assets'), join(stage, 'src/dashboard/assets'), { recursive: true })
    await template(stage)
    // the stamp is as old as the sources this build read: a file saved during the build makes it stale
    writeFileSync(join(stage, '.built'), started.toISOString() + '\n')
    utimesSync(join(stage, '.built'), started, started)
    swapIn(stage)
  } finally {
    rmSync(stage, { recursive: true, force: true })
  }
}

async function compile (stage) {
  const esbuild = await import('esbuild')
  const common = { platform: 'node', format: 'esm', target: 'node20', tsconfig: join(root, 'tsconfig.json'), logLevel: 'warning', absWorkingDir: root }
  // the server, file for file: what `npm start` runs, laid out as the sources are
  const files = SOURCES.flatMap(folder => readdirSync(join(root, folder), { recursive: true })
    .filter(name => name.endsWith('.ts') && !name.endsWith('.d.ts')).map(name => join(folder, name)))
  await esbuild.build({ ...common, entryPoints: files, outdir: stage, outbase: root, bundle: false })
  // The CLI, with the few packages that are plain JavaScript of many small files it needs (one file
  // read instead of hundreds); the others stay in node_modules (PGlite finds its WebAssembly there).
  const { dependencies, devDependencies } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
  // and Fastify's own compilers, which src/http/lazy-schemas.ts wraps: the copies Fastify would load
  const packages = [...Object.keys({ ...dependencies, ...devDependencies }), '@fastify/ajv-compiler', '@fastify/fast-json-stringify-compiler']
  const bundles = (entryPoints, external, extra = {}) => esbuild.build({
    ...common,
    entryPoints,
    outdir: join(stage, 'bin'),
    bundle: true,
    splitting: true,
    external,
    chunkNames: 'chunk-[hash]',
    plugins: [besideTheSources(join(stage, 'bin'), stage)],
    ...extra
  })
  await bundles({ cli: BUNDLES.cli }, packages.filter(name => !['drizzle-orm', 'postgres', '@sinclair/typebox'].includes(name)))
  // The sandbox and the emulator: every package bundled (Fastify and its plugins, Ajv, undici, got,
  // pino, prom-client: several hundred files Node would resolve, read and compile one by one), but
  // those that read files beside their own (PGlite its WebAssembly and data, swagger-ui its pages,
  // @fastify/swagger its package.json) and the tools that are never imported at run time.
  await bundles({ sandbox: BUNDLES.sandbox, emulator: BUNDLES.emulator }, [...UNBUNDLED, ...Object.keys(devDependencies)], {
    // the CommonJS packages in an ES module still require Node's own modules
    banner: { js: "import { createRequire as __outboundCreateRequire } from 'node:module'; const require = __outboundCreateRequire(import.meta.url);" }
  })
}

/**
 * A bundled file that finds files beside itself (new URL('./migrations', import.meta.url)) finds them
 * where its file-for-file build is: import.meta.url becomes that file's URL, relative to the bundle.
 */
function besideTheSources (bundleDir, stage) {
  return {
    name: 'beside-the-sources',
    setup (build) {
      build.onLoad({ filter: /\.ts$/ }, ({ path }) => {
        const source = readFileSync(path, 'utf8')
        if (!source.includes('import.meta.url')) return undefined
        const built = relative(bundleDir, join(stage, relative(root, path))).replace(/\.ts$/, '.js')
        return { contents: source.replaceAll('import.meta.url', `new URL(${JSON.stringify(built)}, import.meta.url).href`), loader: 'ts' }
      })
    }
  }
}

/** The migrated empty database, made again only when the migrations or PGlite changed. */
async function template (stage) {
  const key = createHash('sha256')
  for (const name of readdirSync(join(root, 'db/migrations'), { recursive: true }).sort()) {
    const path = join(root, 'db/migrations', name)
    if (statSync(path).isFile()) key.update(name).update(readFileSync(path))
  }
  key.update(readFileSync(join(root, 'node_modules/@electric-sql/pglite/package.json')))
  const digest = key.digest('hex')
  const keyFile = 'pgdata-template.key'
  if (existsSync(join(dist, 'pgdata-template/PG_VERSION')) && existsSync(join(dist, 'pgdata-template.tar')) && readIfAny(join(dist, keyFile)) === digest) {
    cpSync(join(dist, 'pgdata-template'), join(stage, 'pgdata-template'), { recursive: true })
    cpSync(join(dist, 'pgdata-template.tar'), join(stage, 'pgdata-template.tar'))
  } else {
    // In a scratch DATA_DIR of a child process: its exit gives initdb's memory back.
    const scratch = join(stage, '.template')
    execFileSync(process.execPath, ['--input-type=module', '-e', `
      const { openPglite } = await import(${JSON.stringify(join(stage, 'db/client.js'))})
      const { openEmbedded } = await import(${JSON.stringify(join(stage, 'db/embedded.js'))})
      const database = openPglite(openEmbedded(${JSON.stringify(scratch)}, { fromTemplate: false }), 'pglite')
      await database.migrate()
      await database.close()`], { stdio: ['ignore', 2, 2] })
    renameSync(join(scratch, 'pgdata'), join(stage, 'pgdata-template'))
    rmSync(scratch, { recursive: true, force: true })
    // the same cluster as a tarball: an in-memory database (memory://, the tests) loads it instead of running initdb
    execFileSync(process.execPath, ['--input-type=module', '-e', `
      const { writeTarball } = await import(${JSON.stringify(join(stage, 'db/embedded.js'))})
      await writeTarball(${JSON.stringify(join(stage, 'pgdata-template'))}, ${JSON.stringify(join(stage, 'pgdata-template.tar'))})`], { stdio: ['ignore', 2, 2] })
  }
  writeFileSync(join(stage, keyFile), digest)
}

function readIfAny (path) {
  return existsSync(path) ? readFileSync(path, 'utf8') : undefined
}

/** The new dist/ replaces the old in two renames: no reader finds a half-built one. */
function swapIn (stage) {
  const old = join(root, `.dist-old-${process.pid}`)
  if (existsSync(dist)) renameSync(dist, old)
  renameSync(stage, dist)
  rmSync(old, { recursive: true, force: true })
}

/** One build at a time: the tests start many commands at once, and each may find dist/ stale. */
async function withBuildLock (action) {
  for (;;) {
    try {
      closeSync(openSync(lockFile, 'wx'))
      writeFileSync(lockFile, String(process.pid))
      break
    } catch (error) {
      if (error.code !== 'EEXIST') throw error
    }
    if (abandoned()) {
      rmSync(lockFile, { force: true })
      continue
    }
    await new Promise(resolve => setTimeout(resolve, 100))
  }
  try {
    await action()
  } finally {
    rmSync(lockFile, { force: true })
  }
}

// A lock whose builder died is taken over; one without a pid yet is being taken right now (unless old).
function abandoned () {
  let pid, age
  try {
    pid = Number(readFileSync(lockFile, 'utf8'))
    age = Date.now() - statSync(lockFile).mtimeMs
  } catch {
    return false // gone meanwhile: the next attempt takes it
  }
  if (!pid) return age > 10_000
  try {
    process.kill(pid, 0)
    return false
  } catch (error) {
    return error.code !== 'EPERM'
  }
}
