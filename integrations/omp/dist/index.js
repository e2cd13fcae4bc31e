// The entry named by package.json's `omp` and `pi` manifests (the same path omp-session-store uses).
// Plain ESM: nothing is built; the code lives in ../src.
export { default } from "../src/index.js";
