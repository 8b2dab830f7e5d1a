// ESLint flat config after the Effect repositories' own: the recommended JavaScript and TypeScript rules,
// dprint formatting through @effect/eslint-plugin, and imports and exports sorted by simple-import-sort.
// `npm run lint` checks, `npm run lint:fix` formats.
import * as effectEslint from "@effect/eslint-plugin"
import js from "@eslint/js"
import { defineConfig } from "eslint/config"
import simpleImportSort from "eslint-plugin-simple-import-sort"
import globals from "globals"
import tseslint from "typescript-eslint"

// The Effect repositories' dprint settings. The order of imports and exports is left to simple-import-sort:
// with dprint sorting them as well, the two rules undo each other's fixes.
const dprint = {
  indentWidth: 2,
  lineWidth: 120,
  semiColons: "asi",
  quoteStyle: "alwaysDouble",
  trailingCommas: "never",
  operatorPosition: "maintain",
  "arrowFunction.useParentheses": "force",
  "module.sortImportDeclarations": "maintain",
  "module.sortExportDeclarations": "maintain",
  "importDeclaration.sortNamedImports": "maintain",
  "exportDeclaration.sortNamedExports": "maintain"
}

export default defineConfig(
  {
    ignores: [
      "data/**",
      "dist/**",
      "docs/**",
      "migrations/**",
      "test/artifacts/**",
      "test/system/logs/**",
      "**/*.md",
      "**/*.json"
    ]
  },
  {
    files: ["**/*.{ts,tsx,mts,cts,js,mjs,cjs}"]
  },
  js.configs.recommended,
  tseslint.configs.recommended,
  effectEslint.configs.dprint,
  {
    plugins: {
      "simple-import-sort": simpleImportSort
    },
    languageOptions: {
      parser: tseslint.parser,
      ecmaVersion: "latest",
      sourceType: "module",
      globals: globals.node
    },
    linterOptions: {
      reportUnusedDisableDirectives: "error"
    },
    rules: {
      "simple-import-sort/imports": "error",
      "simple-import-sort/exports": "error",
      "object-shorthand": "error",
      "@typescript-eslint/array-type": ["error", { default: "generic", readonly: "generic" }],
      "@typescript-eslint/no-unused-vars": ["error", {
        argsIgnorePattern: "^_",
        varsIgnorePattern: "^_",
        caughtErrorsIgnorePattern: "^_"
      }],
      // `let timer; const settle = () => clearTimeout(timer); timer = setTimeout(...)` is declared early on purpose.
      "prefer-const": ["error", { ignoreReadBeforeAssign: true }],
      // Input validation matches control characters on purpose.
      "no-control-regex": "off",
      "@effect/dprint": ["error", { config: dprint }]
    }
  },
  {
    // Every write's conflicts are retried by the client it runs on (src/persistence/RetryingSqlClient.ts): the
    // service's code takes that client, never the app's own, so no transaction or statement can run without it.
    files: ["src/**", "probes/**"],
    ignores: ["src/persistence/RetryingSqlClient.ts", "src/persistence/Migrations.ts"],
    rules: {
      "no-restricted-syntax": ["error", {
        selector: "MemberExpression[object.name=/^(SqlClient|PgClient)$/][property.name=/^(SqlClient|PgClient)$/]",
        message: "Take `RetryingSqlClient` from src/persistence/RetryingSqlClient.ts: it retries " +
          "deadlocks and serialization failures."
      }]
    }
  },
  {
    // Tests read untyped JSON bodies and drive pages; `any` there is a convenience, not a hole in the service.
    files: ["test/**"],
    rules: {
      "@typescript-eslint/no-explicit-any": "off"
    }
  },
  {
    // In TSX a generic arrow function needs its comma (`<A,>(...) =>`) or it reads as a JSX tag, and dprint 0.91
    // drops it under "never": type parameter lists in TSX always end with a comma.
    files: ["**/*.tsx"],
    rules: {
      "@effect/dprint": ["error", { config: { ...dprint, "typeParameters.trailingCommas": "always" } }]
    }
  }
)
