import { recipeProperty } from "./property-support.js";

recipeProperty("recipe-counter", [{ scenario: "recipe-counter-naive" }]);
