// Dolos (its library, @dodona/dolos-lib) on the classes of `cargo xtask bench --similar`, with
// its default settings: one analysis per class folder given, every pair's similarity, and the
// time the analysis took. Prints one JSON object per class on its own line.
import { Dolos } from "@dodona/dolos-lib";
import { readdirSync } from "node:fs";
import { join } from "node:path";

for (const folder of process.argv.slice(2)) {
  const files = readdirSync(folder).filter((name) => name.endsWith(".py")).sort().map((name) => join(folder, name));
  const dolos = new Dolos({ language: "python" });
  const started = process.hrtime.bigint();
  const report = await dolos.analyzePaths(files);
  const pairs = report.allPairs().map((pair) => ({
    left: pair.leftFile.path,
    right: pair.rightFile.path,
    similarity: pair.similarity,
  }));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  console.log(JSON.stringify({ folder, seconds, pairs }));
}
