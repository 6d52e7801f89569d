import { recipeProperty } from "./property-support.js";

recipeProperty("recipe-revocable-lock", [{ scenario: "recipe-revocable-lock-naive" }]);
