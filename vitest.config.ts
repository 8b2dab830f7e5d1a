import { configDefaults, defineConfig } from "vitest/config"

// `npm test` runs both projects; `npm run test:unit` only the tests that need no PostgreSQL, Redis or
// Chromium (named *.unit.test.ts).
export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // What a poll waits for (a browser's answer, a sign-in's password check) can take seconds on a
    // loaded CI machine; Vitest's default of 1 s failed a sign-in there. Only a failing poll waits it out.
    expect: { poll: { timeout: 10_000 } },
    // Suites share the machine's PostgreSQL (each on its own database); two at a time fits 2 cores.
    // (Vitest 4 removed `minWorkers`: `maxWorkers` alone bounds the pool.)
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["test/**/*.unit.test.ts"],
          setupFiles: ["test/support/unitSetup.ts"]
        }
      },
      {
        extends: true,
        test: {
          name: "integration",
          include: ["test/**/*.test.ts"],
          exclude: [...configDefaults.exclude, "test/**/*.unit.test.ts"]
        }
      }
    ]
  }
})
