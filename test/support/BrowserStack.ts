/**
 * What a browser test file sets up: the full stack on a loopback port and Chromium, started
 * before the file's tests and closed after them, with no unexpected page error allowed in any
 * test. Call it once at the top of the file.
 */
import { Effect } from "effect"
import type { Page } from "playwright-core"
import { afterAll, afterEach, beforeAll, expect } from "vitest"

import { adminVariables } from "./Auth.js"
import { type Browser, launchBrowser, openAdminScreen, unexpectedPageErrors } from "./Browser.js"
import { startLiveStack } from "./LiveStack.js"
import { ApiClient } from "./TestServer.js"

export type LiveStack = Awaited<ReturnType<typeof startLiveStack>>

export interface BrowserStack {
  /** The stack and the browser exist from the file's `beforeAll` on: read them inside tests. */
  readonly stack: LiveStack
  readonly browser: Browser
  /** Runs `request` with the stack's API client (the suite's API key). */
  readonly api: <A, E>(request: (client: Effect.Effect.Success<typeof ApiClient>) => Effect.Effect<A, E>) => Promise<A>
  /** A page on the dashboard screen `screen`, signed in. */
  readonly openScreen: (screen: string) => Promise<Page>
}

export const useBrowserStack = (variables: Record<string, string> = adminVariables): BrowserStack => {
  let stack: LiveStack | undefined
  let browser: Browser | undefined

  beforeAll(async () => {
    stack = await startLiveStack(variables)
    browser = await launchBrowser()
  })

  afterEach(() => {
    expect(unexpectedPageErrors(suite.browser)).toEqual([])
  })

  afterAll(async () => {
    await browser?.close()
    await stack?.dispose()
  })

  const started = <A>(value: A | undefined): A => {
    if (value === undefined) throw new Error("the browser stack starts in beforeAll: use it inside a test")
    return value
  }

  const suite: BrowserStack = {
    get stack() {
      return started(stack)
    },
    get browser() {
      return started(browser)
    },
    api: (request) => suite.stack.run(Effect.flatMap(ApiClient, request)),
    openScreen: (screen) => openAdminScreen(suite.browser, suite.stack.baseUrl, screen)
  }
  return suite
}
