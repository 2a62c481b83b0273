import { defineConfig } from 'vitest/config'

// The tests that measure a rate against the upstream's limit run last and alone: beside another
// file on two cores they would measure the machine's load, not the pacer.
const MEASURED_RATE = ['tests/pacer/pacing.test.ts', 'tests/pacer/local-pacer.test.ts', 'tests/redis/two-processes.test.ts', 'tests/queue/drain-rate.test.ts']

export default defineConfig({
  test: {
    globalSetup: ['tests/helpers/global-setup.ts'],
    testTimeout: 90_000,
    hookTimeout: 60_000,
    reporters: ['default'],
    projects: [
      {
        extends: true,
        // two cores: more forks than that only makes every timing-sensitive test noisier
        test: { name: 'suite', include: ['tests/**/*.test.ts'], exclude: MEASURED_RATE, maxWorkers: 2, sequence: { groupOrder: 0 } }
      },
      {
        extends: true,
        test: { name: 'rates', include: MEASURED_RATE, maxWorkers: 1, sequence: { groupOrder: 1 } }
      }
    ]
  }
})
