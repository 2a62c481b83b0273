import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    globalSetup: ['tests/helpers/global-setup.ts'],
    testTimeout: 90_000,
    hookTimeout: 60_000,
    // two cores: more forks than that only makes every timing-sensitive test noisier
    maxWorkers: 2,
    reporters: ['default']
  }
})
