// ESLint for the web client (make lint-js): every module is linted, and every module starts
// with `// @ts-check`.
import js from "@eslint/js";
import globals from "globals";

const STATIC_JS = "services/gateway/lexio_gateway/static/js";

// tsconfig.json checks every module (checkJs); the first line makes an editor that opens one
// module alone, without the project's tsconfig, check it the same way.
const requireTsCheck = {
  meta: {
    type: "problem",
    docs: { description: "every checked module starts with // @ts-check" },
    messages: { missing: "The first line must be // @ts-check (an editor checks a module alone by it)." },
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
      "lexio/require-ts-check": "error",
    },
  },
];
