import { conn } from "../../connection/connection.js";
import { addReviewComment } from "../workspace/store.js";
import { createReviewModel } from "./model.js";

/** The page's review model, over the page's connection. */
export const review = createReviewModel({ conn, addComment: addReviewComment });
