export { Random, seedFromEnv } from "@knightcode/testkit";
