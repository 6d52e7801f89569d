import { recipeProperty } from "./property-support.js";

recipeProperty("recipe-barrier", [{ scenario: "recipe-barrier-naive-poll" }]);
