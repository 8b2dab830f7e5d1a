/**
 * `npm run test:system`: the whole system under fire (docs/reliability.md). Starts the test
 * bed, runs the scenarios, prints each figure with its verdict, writes
 * test/artifacts/system-report.json (ignored by git) and exits non-zero when any property does not hold.
 *
 *   SYSTEM_SEED=<n>       replays the random choices of a run (kills, workload); default fixed
 *   SYSTEM_SCENARIOS=a,b  runs only these scenarios (events, checks, fuzz, dependencies, load, mirror, redisFailover, databaseFailover)
 *   SYSTEM_FUZZ_REQUESTS=<n>  requests with the fixed seed (default 20,000; a tenth more with a fresh seed)
 *   SYSTEM_FUZZ_SEED=<n>  the "fresh" seed, to replay a run's second fuzz pass
 *   SYSTEM_TARGET_DELAY_MS=<n>  the monitors' targets answer after this long (default 0)
 */
import { mkdirSync, writeFileSync } from "node:fs"
import * as Path from "node:path"

import { projectRoot } from "../support/ChildProcess.js"
import { fuzzPassed, type FuzzReport, runFuzz } from "./fuzz/index.js"
import { seededRandom } from "./Random.js"
import { runChecksScenario } from "./scenarios/checks.js"
import { judgeDatabaseFailover, runDatabaseFailoverScenario } from "./scenarios/databaseFailover.js"
import { runDependenciesScenario } from "./scenarios/dependencies.js"
import { drainLimitMs, runEventsScenario } from "./scenarios/events.js"
import { fuzzSecrets } from "./scenarios/fuzzSecrets.js"
import { runLoadScenario } from "./scenarios/load.js"
import { runMirrorScenario } from "./scenarios/mirror.js"
import { runRedisFailoverScenario } from "./scenarios/redisFailover.js"
import { startTestBed, type TestBed } from "./TestBed.js"

const fixedSeed = 20261122
const seed = Number(process.env.SYSTEM_SEED ?? fixedSeed)
const only = process.env.SYSTEM_SCENARIOS?.split(",").map((name) => name.trim())
const runs = (name: string) => only === undefined || only.includes(name)
/** Scenarios that start a bed of their own: the shared one starts only for the others. */
const ownBed = new Set(["redisFailover", "databaseFailover"])
const needsSharedBed = only === undefined || only.some((name) => !ownBed.has(name))
const fuzzRequests = Number(process.env.SYSTEM_FUZZ_REQUESTS ?? 20_000)
const freshFuzzRequests = Math.ceil(fuzzRequests / 10)

interface Verdict {
  readonly scenario: string
  readonly property: string
  readonly holds: boolean
  readonly detail: string
  /**
   * A latency target: reported, but it does not fail the run. On a shared 2-core machine a
   * tail latency moves with whatever else runs (the same code measured p99 10, 14, 18 and 38 ms
   * in four runs); a target is tracked here and in the benchmarks, not used as a pass/fail gate.
   */
  readonly target?: true
}

const log = (line: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${line}`)

const main = async () => {
  const startedAt = Date.now()
  const verdicts: Array<Verdict> = []
  const figures: Record<string, unknown> = {}
  const check = (scenario: string, property: string, holds: boolean, detail: string) => {
    verdicts.push({ scenario, property, holds, detail })
    log(`${holds ? "PASS" : "FAIL"} ${scenario}: ${property} (${detail})`)
  }
  const target = (scenario: string, property: string, holds: boolean, detail: string) => {
    verdicts.push({ scenario, property, holds, detail, target: true })
    log(`${holds ? "MET" : "MISSED (target, does not fail the run)"} ${scenario}: ${property} (${detail})`)
  }

  /** Runs a scenario, keeps its figures and judges them; a scenario that throws fails as a whole. */
  const scenario = async <R>(name: string, what: string, run: () => Promise<R>, judge: (report: R) => void) => {
    const scenarioStartedAt = Date.now()
    log(`scenario ${name}: ${what}`)
    try {
      const report = await run()
      figures[name] = { ...report, durationMs: Date.now() - scenarioStartedAt }
      judge(report)
    } catch (error) {
      check(name, "ran to the end", false, String(error instanceof Error ? error.stack : error))
    }
  }

  log(`seed ${seed}${seed === fixedSeed ? " (the fixed one)" : ""}`)
  if (needsSharedBed) log("starting the test bed")
  // Read only by the scenarios that need it, which run only when it was started.
  const bed = needsSharedBed ? await startTestBed() : undefined as unknown as TestBed
  if (needsSharedBed) log(`test bed up in ${Date.now() - startedAt} ms`)
  try {
    // Events and checks kill different processes, so they run side by side.
    await Promise.all([
      runs("events") &&
      scenario(
        "events",
        "1,000 changes while the dispatcher is SIGKILLed",
        () => runEventsScenario(bed, seededRandom(seed), log),
        (events) => {
          const { mail, webhooks } = events
          check(
            "events",
            "lost deliveries = 0",
            webhooks.lost === 0,
            `${webhooks.delivered}/${webhooks.expected} (webhook, event) pairs the client's changes and the webhooks' settings call for delivered`
          )
          check(
            "events",
            "unexpected deliveries = 0",
            webhooks.unexpected === 0 && webhooks.mismatched === 0 && webhooks.badSignatures === 0,
            `${webhooks.unexpected} unexpected, ${webhooks.mismatched} not as the client sent, ${webhooks.badSignatures} bad signatures; ${webhooks.ofIndeterminateChanges} of indeterminate changes, ${webhooks.foreign} of other scenarios' components`
          )
          check(
            "events",
            "duplicates carry the same webhook-id",
            webhooks.duplicatesWithDifferentIds === 0,
            `${webhooks.duplicated} duplicated, ${webhooks.duplicatesWithDifferentIds} under another id`
          )
          check(
            "events",
            "every acknowledged change committed once",
            events.acknowledgedNotCommitted === 0,
            `${events.acknowledgedOperations} acknowledged (write p50 ${events.operationLatencyMs.p50} ms, p99 ${events.operationLatencyMs.p99} ms), ${events.indeterminateOperations} indeterminate, ${events.expectedEvents} events expected, ${events.acknowledgedNotCommitted} not in the outbox exactly once`
          )
          check(
            "events",
            "subscriber mail lost = 0",
            mail.lost === 0,
            `${mail.delivered}/${mail.expected} mailed (incident and maintenance events of public items)`
          )
          check(
            "events",
            "unexpected subscriber mail = 0",
            mail.unexpected === 0,
            `${mail.unexpected} unexpected; ${mail.ofIndeterminateChanges} of indeterminate changes`
          )
          check(
            "events",
            "no mail sent twice but across a dispatcher kill",
            mail.duplicatedWithoutKill === 0,
            `${mail.duplicated} mailed twice, ${mail.duplicatedWithoutKill} with no kill between`
          )
          check(
            "events",
            "at least 10 dispatcher kills",
            events.dispatcherKills >= 10,
            `${events.dispatcherKills} kills`
          )
          check(
            "events",
            "backlog drained within 70 s of the last kill (a mail's 45 s lease, the 10 s poll, 15 s to send)",
            webhooks.lost === 0 && mail.lost === 0 && events.drainAfterLastKillMs <= drainLimitMs,
            `${events.drainAfterLastKillMs} ms`
          )
        }
      ),
      runs("checks") &&
      scenario(
        "checks",
        "500 monitors while probe agents are SIGKILLed",
        () => runChecksScenario(bed, seededRandom(seed + 1), log),
        (checks) => {
          check(
            "checks",
            "every run due by the slot rule stored once or recorded as missed",
            checks.lost === 0 && checks.storedAndMissed === 0 && checks.offSlot === 0,
            `${checks.expected} due (${checks.monitors} monitors in ${
              checks.windowMs / 1000
            } s, 2 regions): ${checks.stored} stored, ${checks.missed} missed (${checks.missedWhileRegionUp} while their region had a probe up throughout), ${checks.lost} neither, ${checks.storedAndMissed} both, ${checks.offSlot} off the slots${
              checks.examples.records.length > 0 ? `; ${checks.examples.records.join("; ")}` : ""
            }`
          )
          check(
            "checks",
            "runs missed while their region had a probe up <= 1 %",
            checks.missedWhileRegionUp <= checks.expected / 100,
            `${checks.missedWhileRegionUp} of ${checks.expected} runs missed although a probe of their region was up from their slot to one interval after (a killed probe's jobs not handed over in time); ${checks.missedWhileRegionDown} more while their region had none${
              checks.examples.missedWhileRegionUp.length > 0
                ? `; ${checks.examples.missedWhileRegionUp.join("; ")}`
                : ""
            }`
          )
          check(
            "checks",
            "every push monitor's slot has one run, as the client's pushes call for",
            checks.push.asPlanned === checks.push.expected && checks.push.sendFailures.length === 0,
            `${checks.push.expected} slots of push monitors (${checks.push.byAction.up} pushed up, ${checks.push.byAction.late} up within the grace, ${checks.push.byAction.down} down, ${checks.push.byAction.none} without a push; the latest sent ${
              Math.round(checks.push.latestSendMs)
            } ms after its time): ${checks.push.asPlanned} as planned, ${checks.push.lost} without a run, ${checks.push.twice} with two, ${checks.push.wrong} of another outcome${
              [...checks.push.examples, ...checks.push.sendFailures.slice(0, 5)].map((e) => `; ${e}`).join("")
            }`
          )
          check(
            "checks",
            "the target saw every stored check, none twice",
            checks.storedWithoutRequest === 0 && checks.deliveredTwice === 0 &&
              checks.targetRequestsFromUnknownSource === 0,
            `${checks.targetRequests} requests in the window; ${checks.storedWithoutRequest} stored without a request, ${checks.deliveredTwice} runs requested twice (${checks.deliveredTwiceAfterKill} more after their probe was killed), ${checks.targetRequestsFromUnknownSource} from no probe's address${
              checks.examples.target.length > 0 ? `; ${checks.examples.target.join("; ")}` : ""
            }`
          )
        }
      )
    ])
    if (runs("fuzz")) {
      // The fixed seed makes the bulk of the run the same every time; a fresh seed (printed, and
      // in the report) explores further, and SYSTEM_FUZZ_SEED=<it> replays it.
      const freshSeed = Number(process.env.SYSTEM_FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31))
      const runs_ = [{ seed, requests: fuzzRequests }, { seed: freshSeed, requests: freshFuzzRequests }]
      await scenario("fuzz", `requests from the OpenAPI document, seeds ${seed} and ${freshSeed} (fresh)`, async () => {
        const reports: Array<FuzzReport> = []
        const { removePushMonitor, ...secrets } = await fuzzSecrets(bed)
        for (const [i, run] of runs_.entries()) {
          reports.push(
            await runFuzz({
              baseUrl: bed.apis[0].baseUrl,
              apiKey: bed.apiKey,
              concurrency: 16,
              log: (line) => log(`  ${line}`),
              ...secrets,
              // Each run from its own address: the sign-in failures one counts do not throttle the next.
              localAddress: `127.77.0.${i + 1}`,
              ...run
            })
          )
        }
        await removePushMonitor()
        return { runs: reports }
      }, ({ runs: reports }) => {
        const sum = (pick: (report: FuzzReport) => number) => reports.reduce((total, report) => total + pick(report), 0)
        const requests = sum((report) => report.requests)
        // An operation must succeed at least once in the scenario: the fixed seed's run does the
        // bulk; the fresh seed's 2,000 requests may leave one the other covered.
        // Those that need what no fuzzer holds (a session, a mailed invitation) are named, not counted.
        const excused = reports[0]!.needSecrets
        const noneAtAll = reports[0]!.operationsWithout2xx.filter((id) =>
          reports.every((report) => report.operationsWithout2xx.includes(id))
        )
        const never = noneAtAll.filter((id) => !excused.includes(id))
        check(
          "fuzz",
          "at least 20,000 requests, every operation answered 2xx",
          requests >= 20_000 && never.length === 0,
          `${requests} requests; ${reports[0]!.operationsTotal - noneAtAll.length}/${
            reports[0]!.operationsTotal
          } operations answered 2xx${
            excused.length > 0 ? ` (${excused.length} need what the fuzzer does not hold: ${excused.join(", ")})` : ""
          } (${
            reports.map((report) =>
              `seed ${report.seed}: ${report.operationsWith2xx}${
                report.operationsWithout2xx.length > 0 ? `, not ${report.operationsWithout2xx.join(", ")}` : ""
              }`
            ).join("; ")
          })${
            never.length > 0
              ? `; never: ${never.map((id) => `${id} ${JSON.stringify(reports[0]!.answersWithout2xx[id])}`).join(", ")}`
              : ""
          }`
        )
        check(
          "fuzz",
          "0 responses >= 500",
          sum((report) => report.serverErrors + report.transportErrors) === 0,
          `${sum((report) => report.serverErrors)} server errors, ${
            sum((report) => report.transportErrors)
          } without an answer`
        )
        check(
          "fuzz",
          "every error response has the contract's shape",
          sum((report) => report.errorShapeViolations) === 0,
          `${sum((report) => report.errorShapeViolations)} violations`
        )
        const undocumented = reports.flatMap((report) => Object.keys(report.undocumentedByOperation))
        check(
          "fuzz",
          "every status is documented for its operation",
          sum((report) => report.undocumentedStatuses) === 0,
          `${sum((report) => report.undocumentedStatuses)} answers${
            undocumented.length > 0 ? `: ${[...new Set(undocumented)].join(", ")}` : ""
          }`
        )
        check(
          "fuzz",
          "every documented response matches its schema",
          sum((report) => report.schemaViolations) === 0,
          `${sum((report) => report.schemaViolations)} violations`
        )
        check(
          "fuzz",
          "every admin operation 401 without credentials",
          sum((report) => report.adminWithoutCredentialsNot401) === 0,
          `${sum((report) => report.adminWithoutCredentialsNot401)} exceptions`
        )
        check(
          "fuzz",
          "the whole report passes",
          reports.every((report) => fuzzPassed({ ...report, operationsWithout2xx: never })),
          reports.map((report) => `seed ${report.seed}: ${report.requests} in ${report.durationMs} ms`).join("; ")
        )
      })
    }
    if (runs("dependencies")) {
      await scenario(
        "dependencies",
        "Redis stopped, PostgreSQL connections killed and taken away, under read load",
        () => runDependenciesScenario(bed, log),
        (deps) => {
          check(
            "dependencies",
            "public reads keep answering",
            deps.publicReads.failed === 0,
            `${deps.publicReads.total - deps.publicReads.failed}/${deps.publicReads.total} answered 200`
          )
          check(
            "dependencies",
            "checks stored again after Redis returns",
            deps.checksStoredAgainAfterRedisMs !== null,
            `after ${deps.checksStoredAgainAfterRedisMs} ms`
          )
          check(
            "dependencies",
            "writes succeed after connections are killed",
            deps.writesFailedAfterTermination === 0,
            `${deps.connectionsTerminated} connections terminated, ${deps.writesFailedAfterTermination} writes failed`
          )
          check(
            "dependencies",
            "writes answer 503 with an error body while the database is away",
            deps.writesWhileAway.total > 0 &&
              deps.writesWhileAway.answered503WithErrorBody === deps.writesWhileAway.total,
            `${deps.writesWhileAway.answered503WithErrorBody}/${deps.writesWhileAway.total}${
              deps.writesWhileAway.other.length > 0 ? `; ${deps.writesWhileAway.other.join("; ")}` : ""
            }`
          )
          check(
            "dependencies",
            "/readyz answers 503 while the database is away, 200 after",
            deps.readyzWhileAway.length > 0 && deps.readyzWhileAway.every((status) => status === 503) &&
              deps.readyzBackAfterMs !== null,
            `${
              deps.readyzWhileAway.filter((status) => status === 503).length
            }/${deps.readyzWhileAway.length} 503 while away${
              deps.readyzWhileAway.some((status) => status !== 503)
                ? ` (${[...new Set(deps.readyzWhileAway.filter((status) => status !== 503))].join(", ")} otherwise)`
                : ""
            }; 200 on both ${deps.readyzBackAfterMs} ms after it returned`
          )
          check(
            "dependencies",
            "writes recover without a restart",
            deps.writesRecoveredAfterMs !== null,
            `after ${deps.writesRecoveredAfterMs} ms`
          )
          check(
            "dependencies",
            "changes reach the other instance again",
            deps.changeSeenByOtherInstanceAfterMs !== null && deps.changeSeenByOtherInstanceAfterMs <= 5_000,
            `after ${deps.changeSeenByOtherInstanceAfterMs} ms`
          )
          check(
            "dependencies",
            "checks stored again after the database returns",
            deps.checksStoredAgainAfterDatabaseMs !== null,
            `after ${deps.checksStoredAgainAfterDatabaseMs} ms`
          )
          check(
            "dependencies",
            "every check the target saw is stored, through terminated connections and the database's absence",
            deps.checksStored.notStored === 0,
            `${
              deps.checksStored.requests - deps.checksStored.notStored
            }/${deps.checksStored.requests} requests to the target stored (until the database returned; not judged: ${deps.checksStored.lostWithRedis} lost with Redis)`
          )
          check(
            "dependencies",
            "every run due while the database was away stored once or recorded as missed",
            deps.runsDueWhileAway.expected > 0 && deps.runsDueWhileAway.lost === 0 && deps.runsDueWhileAway.both === 0,
            `${deps.runsDueWhileAway.expected} due by the slot rule: ${deps.runsDueWhileAway.stored} stored, ${deps.runsDueWhileAway.missed} missed (${
              Object.entries(deps.runsDueWhileAway.missedByReason).map(([reason, n]) => `${n} ${reason}`).join(", ") ||
              "none"
            }), ${deps.runsDueWhileAway.lost} neither, ${deps.runsDueWhileAway.both} both${
              deps.runsDueWhileAway.examples.length > 0 ? `; ${deps.runsDueWhileAway.examples.join("; ")}` : ""
            }`
          )
        }
      )
    }
    if (runs("load")) {
      await scenario(
        "load",
        "64 connections for 60 s while an incident is updated every second",
        () => runLoadScenario(bed, log),
        (load) => {
          target(
            "load",
            "p99 <= 20 ms",
            load.latencyMs.p99 <= 20,
            `p50 ${load.latencyMs.p50} ms, p99 ${load.latencyMs.p99} ms at ${load.requestsPerSecond} requests/s`
          )
          check(
            "load",
            "no errors",
            load.errors === 0 && load.non2xx === 0 && load.updatesFailed === 0,
            `${load.errors} errors, ${load.non2xx} non-2xx, ${load.updatesFailed} failed updates`
          )
          check(
            "load",
            "every update visible within 1 s",
            load.visibility.slowerThan1s === 0,
            `${load.updates} updates, p50 ${load.visibility.p50Ms} ms, max ${load.visibility.maxMs} ms`
          )
        }
      )
    }
    // Last of the shared bed's: it kills the API instance that publishes.
    if (runs("mirror")) {
      await scenario(
        "mirror",
        "changes published to the static mirror; its publisher SIGKILLed",
        () => runMirrorScenario(bed, log),
        (mirror) => {
          target(
            "mirror",
            "p99 lag <= 5 s",
            mirror.lagMs.p99 <= 5_000,
            `${mirror.changes} changes: p50 ${mirror.lagMs.p50} ms, p99 ${mirror.lagMs.p99} ms, max ${mirror.lagMs.max} ms`
          )
          check(
            "mirror",
            "every change reaches the bucket",
            mirror.unpublished === 0,
            `${mirror.changes - mirror.unpublished}/${mirror.changes} within 20 s`
          )
          check(
            "mirror",
            "the standby takes over when the publisher dies",
            mirror.takeoverMs !== null && mirror.takeoverMs <= 30_000,
            `${mirror.killed} killed; a change made after it in the bucket ${mirror.takeoverMs} ms after the kill`
          )
          check(
            "mirror",
            "a reader sent to the mirror gets what the service answers",
            mirror.differing.length === 0 && mirror.brokenLinks.length === 0,
            `${mirror.compared - mirror.differing.length}/${mirror.compared} paths alike${
              mirror.differing.length > 0 ? ` (not: ${mirror.differing.slice(0, 5).join(", ")})` : ""
            }; ${mirror.brokenLinks.length} links to missing objects${
              mirror.brokenLinks.length > 0 ? ` (${mirror.brokenLinks.slice(0, 5).join(", ")})` : ""
            }`
          )
          check(
            "mirror",
            "nothing is left of an incident made private",
            mirror.privateLeft.length === 0,
            mirror.privateLeft.length === 0 ? "its page and JSON deleted" : `left: ${mirror.privateLeft.join(", ")}`
          )
        }
      )
    }
    if (runs("redisFailover")) {
      await scenario(
        "redisFailover",
        "the Redis master SIGKILLed under checks, behind Sentinel (a bed of its own)",
        () => runRedisFailoverScenario(log),
        (failover) => {
          check(
            "redisFailover",
            "every run due by the slot rule stored once or recorded as missed",
            failover.lost === 0 && failover.storedAndMissed === 0 && failover.offSlot === 0,
            `${failover.expected} due (${failover.monitors} monitors in ${
              failover.windowMs / 1000
            } s, 2 regions): ${failover.stored} stored, ${failover.missed} missed, ${failover.lost} neither, ${failover.storedAndMissed} both, ${failover.offSlot} off the slots${
              failover.examples.length > 0 ? `; ${failover.examples.join("; ")}` : ""
            }`
          )
          check(
            "redisFailover",
            "misses only inside the failover window",
            failover.missedOutsideWindow === 0,
            `${failover.missed} missed, ${failover.missedOutsideWindow} due outside ${failover.failoverWindowMs.from} ms to ${failover.failoverWindowMs.to} ms from the kill (the sentinels promoted the replica after ${failover.failoverMs} ms)`
          )
          check(
            "redisFailover",
            "probes and ingest reconnect by themselves",
            Object.values(failover.checksStoredAgainAfterKillMs).every((ms) => ms !== null) &&
              failover.processesRestartedOrDead === 0,
            `checks run after the failover stored ${
              Object.entries(failover.checksStoredAgainAfterKillMs).map(([region, ms]) => `in ${region} ${ms} ms`).join(
                ", "
              )
            } after the kill; ${failover.processesRestartedOrDead} processes restarted or dead`
          )
          check(
            "redisFailover",
            "the target saw every stored check",
            failover.storedWithoutRequest === 0,
            `${failover.targetRequests} requests in the window, ${failover.storedWithoutRequest} stored without a request, ${failover.requestedTwice} runs requested twice`
          )
        }
      )
    }
    if (runs("databaseFailover")) {
      await scenario(
        "databaseFailover",
        "the PostgreSQL primary SIGKILLed under the events workload, its standby promoted; synchronous, then asynchronous replication (a bed of its own)",
        () => runDatabaseFailoverScenario(seededRandom(seed + 2), log),
        (failover) => judgeDatabaseFailover(failover, check, target)
      )
    }
  } finally {
    if (needsSharedBed) {
      log("stopping the test bed")
      await bed.close()
    }
  }

  const report = {
    command: "npm run test:system",
    finishedAt: new Date().toISOString(),
    seed,
    durationMs: Date.now() - startedAt,
    passed: verdicts.every((verdict) => verdict.holds || verdict.target),
    verdicts,
    figures
  }
  const reportPath = Path.join(projectRoot, "test/artifacts/system-report.json")
  mkdirSync(Path.dirname(reportPath), { recursive: true })
  writeFileSync(reportPath, `${JSON.stringify(report, null, 2)}\n`)
  log(
    `${verdicts.filter((v) => v.holds).length}/${verdicts.length} properties hold (${
      verdicts.filter((v) => v.target && !v.holds).length
    } latency targets missed); report in ${Path.relative(projectRoot, reportPath)} (${
      Math.round(report.durationMs / 1000)
    } s)`
  )
  if (!report.passed) process.exitCode = 1
}

main().catch((error) => {
  console.error(error)
  process.exitCode = 1
})
