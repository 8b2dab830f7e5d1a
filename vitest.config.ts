import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Suites share the machine's PostgreSQL (each on its own database); two at a time fits 2 cores.
    maxWorkers: 2,
    minWorkers: 1
  }
})
