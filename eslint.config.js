// ESLint for the web client (make lint-js): every module is linted. The modules that
// tsconfig.json's "exclude" lists are not type-checked yet (the game kit's refactor, issue 25);
// the rest must say so on their first line.
import { fileURLToPath } from "node:url";
import js from "@eslint/js";
import globals from "globals";
import ts from "typescript";

const STATIC_JS = "services/gateway/lexio_gateway/static/js";

// Read with TypeScript's own reader: tsconfig.json has comments.
const tsconfig = ts.readConfigFile(fileURLToPath(new URL("./tsconfig.json", import.meta.url)), ts.sys.readFile);
if (tsconfig.error) {
  throw new Error(ts.flattenDiagnosticMessageText(tsconfig.error.messageText, "\n"));
}
const notCheckedYet = tsconfig.config.exclude ?? [];

// tsconfig's "checkJs" is off while the exclude list is not empty (an excluded module that a
// checked one imports would be checked all the same), so a module is type-checked only with
// this first line: a new module without it would go unchecked without a word.
const requireTsCheck = {
  meta: {
    type: "problem",
    docs: { description: "every checked module starts with // @ts-check" },
    messages: { missing: "The first line must be // @ts-check (tsconfig.json checks no file without it)." },
    schema: [],
  },
  create(context) {
    return {
      Program() {
        if (!/^\/\/ @ts-check\s*$/m.test(context.sourceCode.lines[0] ?? "")) {
          context.report({ loc: { line: 1, column: 0 }, messageId: "missing" });
        }
      },
    };
  },
};

export default [
  {
    files: [`${STATIC_JS}/**/*.js`],
    ...js.configs.recommended,
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: "module",
      globals: globals.browser,
    },
    plugins: { lexio: { rules: { "require-ts-check": requireTsCheck } } },
    rules: {
      ...js.configs.recommended.rules,
      eqeqeq: ["error", "smart"],
      "no-var": "error",
      "prefer-const": "error",
      "no-unused-vars": ["error", { args: "none", caughtErrors: "none" }],
    },
  },
  {
    files: [`${STATIC_JS}/**/*.js`],
    ignores: notCheckedYet,
    rules: { "lexio/require-ts-check": "error" },
  },
];
