import { Type } from "typebox";
import { Closed } from "./common.js";
import { request } from "./define.js";

export const FileMatch = Type.Object(
  {
    path: Type.String({ description: "Relative to cwd, with `/` between segments and no leading `./`." }),
    score: Type.Number({ description: "Higher is better; compare scores within one answer only." }),
    indices: Type.Array(Type.Integer({ minimum: 0 }), {
      description: "The matched characters: 0-based UTF-16 positions in path, ascending.",
    }),
  },
  { ...Closed, $id: "FileMatch" },
);

export const search = {
  clientRequests: {
    "file/search": request({
      params: Type.Object(
        {
          cwd: Type.String({ minLength: 1, maxLength: 4096, description: "An existing directory, absolute: the folder to search." }),
          query: Type.String({ minLength: 1, maxLength: 256, description: "Matched fuzzily, ignoring case; whitespace separates terms that must all match." }),
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, description: "Most files to answer; 50 by default." })),
          searchId: Type.Optional(
            Type.String({ maxLength: 128, description: "A later search with the same id, from any connection, answers this one at once with no files." }),
          ),
        },
        Closed,
      ),
      result: Type.Object(
        {
          files: Type.Array(FileMatch, { description: "Best first: by descending score." }),
          truncated: Type.Boolean({
            description: "The listing stopped at its cap (200,000 paths or 32 MiB), so some files were not searched; never about limit.",
          }),
        },
        Closed,
      ),
      errors: ["toolMissing"],
      doc: "Fuzzy file search in a folder, over the files fd lists there (.gitignore honoured inside a repository, .git left out, hidden files included, symbolic links not followed). Listings are cached for ten seconds. A superseded search answers `{files: [], truncated: false}`; `toolMissing` when neither fd nor fdfind is on the server's PATH.",
    }),
    "directory/list": request({
      params: Type.Object(
        {
          path: Type.String({
            minLength: 1,
            maxLength: 4096,
            description: "An absolute path, or `~` / `~/…` for the server's home folder: the folder whose subfolders to list.",
          }),
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, description: "Most subfolders to answer; 200 by default." })),
        },
        Closed,
      ),
      result: Type.Object(
        {
          path: Type.String({ description: "The folder listed: absolute, with `~` expanded and `.`/`..` resolved." }),
          directories: Type.Array(
            Type.Object(
              {
                name: Type.String({ description: "The subfolder's name, as the file system has it." }),
                path: Type.String({ description: "Its absolute path." }),
              },
              Closed,
            ),
            { description: "Sorted by name; hidden ones (a leading dot) left out; a symbolic link to a folder included." },
          ),
          truncated: Type.Boolean({
            description: "More subfolders were there than limit: the answer holds the first limit in the order they were read, sorted.",
          }),
        },
        Closed,
      ),
      doc: "Beyond the spec: the subfolders of a folder on the server's machine, for a client completing a project path. Names only: no files, no contents. A relative path, one that does not exist, one that is no folder, or one the server may not read is invalidParams, its message saying which.",
    }),
  },
} as const;
