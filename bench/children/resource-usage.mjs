// `node --import bench/children/resource-usage.mjs …` (bench/cli.ts where /usr/bin/time is missing):
// prints the process's own CPU time and peak RSS at exit, as /usr/bin/time -f 'BENCH %e %U %S %M' would.
process.on('exit', () => {
  const usage = process.resourceUsage()
  process.stderr.write(`BENCH 0 ${usage.userCPUTime / 1e6} ${usage.systemCPUTime / 1e6} ${usage.maxRSS}\n`)
})
