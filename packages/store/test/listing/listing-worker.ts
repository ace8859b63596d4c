// Lists a folder over and over, writing its index each time: the other
// side of the concurrent-writers test. Usage: listing-worker.js <dir> <rounds>
import { ThreadListing } from "../../src/listing/thread-listing.js";

const [dir, rounds] = process.argv.slice(2);
for (let i = 0; i < Number(rounds); i++) {
  // A new engine each round reads the index the others wrote.
  const listing = new ThreadListing();
  await listing.list({ folders: [dir!], limit: 10 });
  await listing.flush();
}
process.stdout.write("done\n");
