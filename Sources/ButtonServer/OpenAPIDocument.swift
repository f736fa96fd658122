/// The OpenAPI 3.1 document served at `GET /api/v1/openapi.json`: every route, body and error.
/// `OpenAPITests` fails when a route exists that this lacks, or the reverse; the hostile-input
/// suite (tests/hostile) runs schemathesis against it and the live server.
enum OpenAPIDocument {
    static let json: String = #"""
    {
      "openapi": "3.1.0",
      "info": {
        "title": "buttond",
        "version": "1",
        "description": "Virtual buttons over HTTP: raw touch input in, control events (tap, long press, double tap, toggle, sheet choices) out, handlers (webhooks, scripts) fired on them. Every error is JSON (`Error`). With no token configured and a loopback bind nothing asks for auth; with tokens, everything under /api/v1 and /metrics needs one: the press token may call GET and the input and sheet-action routes, the admin token everything. Request bodies are strict JSON (UTF-8, no duplicate keys, depth at most 32) of at most 64 KiB; an empty body reads as {}. HEAD is answered wherever GET is; other methods on a known path get 405 with Allow."
      },
      "servers": [
        {
          "url": "/"
        }
      ],
      "tags": [
        {
          "name": "buttons"
        },
        {
          "name": "input"
        },
        {
          "name": "sheets"
        },
        {
          "name": "events"
        },
        {
          "name": "handlers"
        },
        {
          "name": "deliveries"
        },
        {
          "name": "config"
        },
        {
          "name": "server"
        },
        {
          "name": "static"
        }
      ],
      "paths": {
        "/": {
          "x-buttond-fallback": true,
          "get": {
            "operationId": "panel",
            "summary": "The control panel",
            "tags": [
              "static"
            ],
            "security": [],
            "responses": {
              "200": {
                "description": "public/index.html. Every path outside /api is a file from public/ (no directory listing, no path outside it: `..` segments are 400, missing files 404), with ETag, 304 on If-None-Match, and CSP, nosniff and no-referrer headers.",
                "headers": {
                  "ETag": {
                    "schema": {
                      "type": "string"
                    }
                  }
                },
                "content": {
                  "text/html": {
                    "schema": {
                      "type": "string"
                    }
                  }
                }
              },
              "304": {
                "description": "Not modified (If-None-Match)."
              },
              "404": {
                "$ref": "#/components/responses/NotFound"
              }
            }
          }
        },
        "/healthz": {
          "get": {
            "operationId": "health",
            "summary": "Liveness",
            "tags": [
              "server"
            ],
            "security": [],
            "responses": {
              "200": {
                "description": "Always `ok`.",
                "content": {
                  "text/plain": {
                    "schema": {
                      "type": "string",
                      "const": "ok"
                    }
                  }
                }
              }
            }
          }
        },
        "/metrics": {
          "get": {
            "operationId": "metrics",
            "summary": "Prometheus metrics",
            "tags": [
              "server"
            ],
            "security": [
              {
                "bearerAuth": []
              },
              {}
            ],
            "responses": {
              "200": {
                "description": "The Prometheus text exposition format.",
                "content": {
                  "text/plain": {
                    "schema": {
                      "type": "string"
                    }
                  }
                }
              },
              "401": {
                "$ref": "#/components/responses/Unauthorized"
              }
            }
          }
        },
        "/api/v1/openapi.json": {
          "get": {
            "operationId": "openapi",
            "summary": "This document",
            "tags": [
              "server"
            ],
            "security": [
              {
                "bearerAuth": []
              },
              {}
            ],
            "responses": {
              "200": {
                "description": "The OpenAPI 3.1 document.",
                "content": {
                  "application/json": {
                    "schema": {
                      "type": "object"
                    }
                  }
                }
              },
              "401": {
                "$ref": "#/components/responses/Unauthorized"
              }
            }
          }
        },
        "/api/v1/buttons": {
          "get": {
            "operationId": "listButtons",
            "summary": "List buttons with their state",
            "tags": [
              "buttons"
            ],
            "parameters": [
              {
                "$ref": "#/components/parameters/Offset"
              },
              {
                "name": "limit",
                "in": "query",
                "required": false,
                "schema": {
                  "type": "integer",
                  "minimum": 1,
                  "maximum": 10000
                },
                "description": "At most this many (default 1000)."
              }
            ],
            "security": [
              {
                "bearerAuth": []
              },
              {}
            ],
            "responses": {
              "200": {
                "description": "OK",
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/ButtonList"
                    }
                  }
                }
              },
              "401": {
                "$ref": "#/components/responses/Unauthorized"
              },
              "422": {
                "$ref": "#/components/responses/Invalid"
              }
            }
          },
          "post": {
            "operationId": "createButton",
            "summary": "Create a button",
            "tags": [
              "buttons"
            ],
            "requestBody": {
              "required": true,
              "content": {
                "application/json": {
                  "schema": {
                    "$ref": "#/components/schemas/ButtonCreate"
                  }
                }
              }
            },
            "security": [
              {
                "bearerAuth": []
              },
              {}
            ],
            "responses": {
              "201": {
                "description": "Created.",
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/Button"
                    }
                  }
                },
                "headers": {
                  "Location": {
                    "schema": {
                      "type": "string"
                    },
                    "description": "The new resource's path."
                  }
                }
              },
              "400": {
                "$ref": "#/components/responses/BadRequest"
              },
              "401": {
                "$ref": "#/components/responses/Unauthorized"
              },
              "403": {
                "$ref": "#/components/responses/Forbidden"
              },
              "409": {
                "$ref": "#/components/responses/Conflict"
              },
              "413": {
                "$ref": "#/components/responses/TooLarge"
              },
              "415": {
                "$ref": "#/components/responses/NotJSON"
              },
              "422": {
                "$ref": "#/components/responses/Invalid"
              },
              "503": {
                "$ref": "#/components/responses/Unavailable"
              }
            }
          }
        },
        "/api/v1/buttons/{id}": {
          "parameters": [
            {
              "$ref": "#/components/parameters/ButtonID"
            }
          ],
          "get": {
            "operationId": "getButton",
            "summary": "Read a button",
            "tags": [
              "buttons"
            ],
            "security": [
              {
                "bearerAuth": []
              },
              {}
            ],
            "responses": {
              "200": {
                "description": "OK",
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/Button"
                    }
                  }
                }
              },
              "401": {
                "$ref": "#/components/responses/Unauthorized"
              },
              "404": {
                "$ref": "#/components/responses/NotFound"
              },
              "405": {
                "$ref": "#/components/responses/MethodNotAllowed"
              }
            }
          },
          "patch": {
            "operationId": "updateButton",
            "summary": "Change a button's config",
            "tags": [
              "buttons"
            ],
            "requestBody": {
              "required": false,
              "content": {
                "application/json": {
                  "schema": {
                    "$ref": "#/components/schemas/ButtonPatch"
                  }
                }
              }
            },
            "security": [
              {
                "bearerAuth": []
              },
              {}
            ],
            "responses": {
              "200": {
                "description": "OK",
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/Button"
                    }
                  }
                }
              },
              "400": {
                "$ref": "#/components/responses/BadRequest"
              },
              "401": {
                "$ref": "#/components/responses/Unauthorized"
              },
              "403": {
                "$ref": "#/components/responses/Forbidden"
              },
              "404": {
                "$ref": "#/components/responses/NotFound"
              },
              "405": {
                "$ref": "#/components/responses/MethodNotAllowed"
              },
              "413": {
                "$ref": "#/components/responses/TooLarge"
              },
              "415": {
                "$ref": "#/components/responses/NotJSON"
              },
              "422": {
                "$ref": "#/components/responses/Invalid"
              },
              "503": {
                "$ref": "#/components/responses/Unavailable"
              }
            }
          },
          "delete": {
            "operationId": "deleteButton",
            "summary": "Remove a button with its handlers",
            "tags": [
              "buttons"
            ],
            "security": [
              {
                "bearerAuth": []
              },
              {}
            ],
            "responses": {
              "204": {
                "description": "Removed."
              },
              "401": {
                "$ref": "#/components/responses/Unauthorized"
              },
              "403": {
                "$ref": "#/components/responses/Forbidden"
              },
              "404": {
                "$ref": "#/components/responses/NotFound"
              },
              "405": {
                "$ref": "#/components/responses/MethodNotAllowed"
              },
              "503": {
                "$ref": "#/components/responses/Unavailable"
              }
            }
          }
        },
        "/api/v1/buttons/{id}/down": {
          "parameters": [
            {
              "$ref": "#/components/parameters/ButtonID"
            }
          ],
          "post": {
            "operationId": "downButton",
            "summary": "Touch-down",
            "tags": [
              "input"
            ],
            "requestBody": {
              "required": false,
              "content": {
                "application/json": {
                  "schema": {
                    "$ref": "#/components/schemas/InputDown"
                  }
                }
              },
              "description": "An empty body reads as {}."
            },
            "security": [
              {
                "bearerAuth": []
              },
              {}
            ],
            "responses": {
              "200": {
                "$ref": "#/components/responses/Events"
              },
              "400": {
                "$ref": "#/components/responses/BadRequest"
              },
              "401": {
                "$ref": "#/components/responses/Unauthorized"
              },
              "404": {
                "$ref": "#/components/responses/NotFound"
              },
              "405": {
                "$ref": "#/components/responses/MethodNotAllowed"
              },
              "409": {
                "$ref": "#/components/responses/Conflict"
              },
              "413": {
                "$ref": "#/components/responses/TooLarge"
              },
              "415": {
                "$ref": "#/components/responses/NotJSON"
              },
              "422": {
                "$ref": "#/components/responses/Invalid"
              },
              "503": {
                "$ref": "#/components/responses/Unavailable"
              }
            }
          }
        },
        "/api/v1/buttons/{id}/move": {
          "parameters": [
            {
              "$ref": "#/components/parameters/ButtonID"
            }
          ],
          "post": {
            "operationId": "moveButton",
            "summary": "Drag inside or outside",
            "tags": [
              "input"
            ],
            "requestBody": {
              "required": true,
              "content": {
                "application/json": {
                  "schema": {
                    "$ref": "#/components/schemas/InputMove"
                  }
                }
              },
              "description": "An empty body reads as {}."
            },
            "security": [
              {
                "bearerAuth": []
              },
              {}
            ],
            "responses": {
              "200": {
                "$ref": "#/components/responses/Events"
              },
              "400": {
                "$ref": "#/components/responses/BadRequest"
              },
              "401": {
                "$ref": "#/components/responses/Unauthorized"
              },
              "404": {
                "$ref": "#/components/responses/NotFound"
              },
              "405": {
                "$ref": "#/components/responses/MethodNotAllowed"
              },
              "409": {
                "$ref": "#/components/responses/Conflict"
              },
              "413": {
                "$ref": "#/components/responses/TooLarge"
              },
              "415": {
                "$ref": "#/components/responses/NotJSON"
              },
              "422": {
                "$ref": "#/components/responses/Invalid"
              },
              "503": {
                "$ref": "#/components/responses/Unavailable"
              }
            }
          }
        },
        "/api/v1/buttons/{id}/up": {
          "parameters": [
            {
              "$ref": "#/components/parameters/ButtonID"
            }
          ],
          "post": {
            "operationId": "upButton",
            "summary": "Touch-up",
            "tags": [
              "input"
            ],
            "requestBody": {
              "required": false,
              "content": {
                "application/json": {
                  "schema": {
                    "$ref": "#/components/schemas/InputUp"
                  }
                }
              },
              "description": "An empty body reads as {}."
            },
            "security": [
              {
                "bearerAuth": []
              },
              {}
            ],
            "responses": {
              "200": {
                "$ref": "#/components/responses/Events"
              },
              "400": {
                "$ref": "#/components/responses/BadRequest"
              },
              "401": {
                "$ref": "#/components/responses/Unauthorized"
              },
              "404": {
                "$ref": "#/components/responses/NotFound"
              },
              "405": {
                "$ref": "#/components/responses/MethodNotAllowed"
              },
              "409": {
                "$ref": "#/components/responses/Conflict"
              },
              "413": {
                "$ref": "#/components/responses/TooLarge"
              },
              "415": {
                "$ref": "#/components/responses/NotJSON"
              },
              "422": {
                "$ref": "#/components/responses/Invalid"
              },
              "503": {
                "$ref": "#/components/responses/Unavailable"
              }
            }
          }
        },
        "/api/v1/buttons/{id}/cancel": {
          "parameters": [
            {
              "$ref": "#/components/parameters/ButtonID"
            }
          ],
          "post": {
            "operationId": "cancelButton",
            "summary": "Touch-cancel",
            "tags": [
              "input"
            ],
            "requestBody": {
              "required": false,
              "content": {
                "application/json": {
                  "schema": {
                    "$ref": "#/components/schemas/InputCancel"
                  }
                }
              },
              "description": "An empty body reads as {}."
            },
            "security": [
              {
                "bearerAuth": []
              },
              {}
            ],
            "responses": {
              "200": {
                "$ref": "#/components/responses/Events"
              },
              "400": {
                "$ref": "#/components/responses/BadRequest"
              },
              "401": {
                "$ref": "#/components/responses/Unauthorized"
              },
              "404": {
                "$ref": "#/components/responses/NotFound"
              },
              "405": {
                "$ref": "#/components/responses/MethodNotAllowed"
              },
              "409": {
                "$ref": "#/components/responses/Conflict"
              },
              "413": {
                "$ref": "#/components/responses/TooLarge"
              },
              "415": {
                "$ref": "#/components/responses/NotJSON"
              },
              "422": {
                "$ref": "#/components/responses/Invalid"
              },
              "503": {
                "$ref": "#/components/responses/Unavailable"
              }
            }
          }
        },
        "/api/v1/buttons/{id}/press": {
          "parameters": [
            {
              "$ref": "#/components/parameters/ButtonID"
            }
          ],
          "post": {
            "operationId": "pressButton",
            "summary": "Down now and up holdMs later, processed at once",
            "tags": [
              "input"
            ],
            "requestBody": {
              "required": false,
              "content": {
                "application/json": {
                  "schema": {
                    "$ref": "#/components/schemas/InputPress"
                  }
                }
              }
            },
            "security": [
              {
                "bearerAuth": []
              },
              {}
            ],
            "responses": {
              "200": {
                "$ref": "#/components/responses/Events"
              },
              "400": {
                "$ref": "#/components/responses/BadRequest"
              },
              "401": {
                "$ref": "#/components/responses/Unauthorized"
              },
              "404": {
                "$ref": "#/components/responses/NotFound"
              },
              "405": {
                "$ref": "#/components/responses/MethodNotAllowed"
              },
              "409": {
                "$ref": "#/components/responses/Conflict"
              },
              "413": {
                "$ref": "#/components/responses/TooLarge"
              },
              "415": {
                "$ref": "#/components/responses/NotJSON"
              },
              "422": {
                "$ref": "#/components/responses/Invalid"
              },
              "503": {
                "$ref": "#/components/responses/Unavailable"
              }
            }
          }
        },
        "/api/v1/buttons/{id}/state": {
          "parameters": [
            {
              "$ref": "#/components/parameters/ButtonID"
            }
          ],
          "put": {
            "operationId": "setFace",
            "summary": "Set a toggle's face (emits toggle if it changed)",
            "tags": [
              "input"
            ],
            "requestBody": {
              "required": true,
              "content": {
                "application/json": {
                  "schema": {
                    "$ref": "#/components/schemas/InputState"
                  }
                }
              }
            },
            "security": [
              {
                "bearerAuth": []
              },
              {}
            ],
            "responses": {
              "200": {
                "$ref": "#/components/responses/Events"
              },
              "400": {
                "$ref": "#/components/responses/BadRequest"
              },
              "401": {
                "$ref": "#/components/responses/Unauthorized"
              },
              "404": {
                "$ref": "#/components/responses/NotFound"
              },
              "405": {
                "$ref": "#/components/responses/MethodNotAllowed"
              },
              "409": {
                "$ref": "#/components/responses/Conflict"
              },
              "413": {
                "$ref": "#/components/responses/TooLarge"
              },
              "415": {
                "$ref": "#/components/responses/NotJSON"
              },
              "422": {
                "$ref": "#/components/responses/Invalid"
              },
              "503": {
                "$ref": "#/components/responses/Unavailable"
              }
            }
          }
        },
        "/api/v1/input": {
          "post": {
            "operationId": "inputBatch",
            "summary": "A batch of inputs for any buttons, all or nothing",
            "tags": [
              "input"
            ],
            "requestBody": {
              "required": true,
              "content": {
                "application/json": {
                  "schema": {
                    "$ref": "#/components/schemas/InputBatch"
                  }
                }
              }
            },
            "security": [
              {
                "bearerAuth": []
              },
              {}
            ],
            "responses": {
              "200": {
                "$ref": "#/components/responses/Events"
              },
              "400": {
                "$ref": "#/components/responses/BadRequest"
              },
              "401": {
                "$ref": "#/components/responses/Unauthorized"
              },
              "404": {
                "$ref": "#/components/responses/NotFound"
              },
              "409": {
                "$ref": "#/components/responses/Conflict"
              },
              "413": {
                "$ref": "#/components/responses/TooLarge"
              },
              "415": {
                "$ref": "#/components/responses/NotJSON"
              },
              "422": {
                "$ref": "#/components/responses/Invalid"
              },
              "503": {
                "$ref": "#/components/responses/Unavailable"
              }
            }
          }
        },
        "/api/v1/sheets": {
          "get": {
            "operationId": "listSheets",
            "summary": "List sheets",
            "tags": [
              "sheets"
            ],
            "security": [
              {
                "bearerAuth": []
              },
              {}
            ],
            "responses": {
              "200": {
                "description": "OK",
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/SheetList"
                    }
                  }
                }
              },
              "401": {
                "$ref": "#/components/responses/Unauthorized"
              }
            }
          },
          "post": {
            "operationId": "createSheet",
            "summary": "Create a sheet",
            "tags": [
              "sheets"
            ],
            "requestBody": {
              "required": true,
              "content": {
                "application/json": {
                  "schema": {
                    "$ref": "#/components/schemas/SheetCreate"
                  }
                }
              }
            },
            "security": [
              {
                "bearerAuth": []
              },
              {}
            ],
            "responses": {
              "201": {
                "description": "Created.",
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/Sheet"
                    }
                  }
                },
                "headers": {
                  "Location": {
                    "schema": {
                      "type": "string"
                    },
                    "description": "The new resource's path."
                  }
                }
              },
              "400": {
                "$ref": "#/components/responses/BadRequest"
              },
              "401": {
                "$ref": "#/components/responses/Unauthorized"
              },
              "403": {
                "$ref": "#/components/responses/Forbidden"
              },
              "409": {
                "$ref": "#/components/responses/Conflict"
              },
              "413": {
                "$ref": "#/components/responses/TooLarge"
              },
              "415": {
                "$ref": "#/components/responses/NotJSON"
              },
              "422": {
                "$ref": "#/components/responses/Invalid"
              },
              "503": {
                "$ref": "#/components/responses/Unavailable"
              }
            }
          }
        },
        "/api/v1/sheets/{id}": {
          "parameters": [
            {
              "$ref": "#/components/parameters/SheetID"
            }
          ],
          "get": {
            "operationId": "getSheet",
            "summary": "Read a sheet",
            "tags": [
              "sheets"
            ],
            "security": [
              {
                "bearerAuth": []
              },
              {}
            ],
            "responses": {
              "200": {
                "description": "OK",
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/Sheet"
                    }
                  }
                }
              },
              "401": {
                "$ref": "#/components/responses/Unauthorized"
              },
              "404": {
                "$ref": "#/components/responses/NotFound"
              },
              "405": {
                "$ref": "#/components/responses/MethodNotAllowed"
              }
            }
          },
          "patch": {
            "operationId": "updateSheet",
            "summary": "Change a sheet",
            "tags": [
              "sheets"
            ],
            "requestBody": {
              "required": false,
              "content": {
                "application/json": {
                  "schema": {
                    "$ref": "#/components/schemas/SheetPatch"
                  }
                }
              }
            },
            "security": [
              {
                "bearerAuth": []
              },
              {}
            ],
            "responses": {
              "200": {
                "description": "OK",
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/Sheet"
                    }
                  }
                }
              },
              "400": {
                "$ref": "#/components/responses/BadRequest"
              },
              "401": {
                "$ref": "#/components/responses/Unauthorized"
              },
              "403": {
                "$ref": "#/components/responses/Forbidden"
              },
              "404": {
                "$ref": "#/components/responses/NotFound"
              },
              "405": {
                "$ref": "#/components/responses/MethodNotAllowed"
              },
              "413": {
                "$ref": "#/components/responses/TooLarge"
              },
              "415": {
                "$ref": "#/components/responses/NotJSON"
              },
              "422": {
                "$ref": "#/components/responses/Invalid"
              },
              "503": {
                "$ref": "#/components/responses/Unavailable"
              }
            }
          },
          "delete": {
            "operationId": "deleteSheet",
            "summary": "Remove a sheet with its handlers",
            "tags": [
              "sheets"
            ],
            "security": [
              {
                "bearerAuth": []
              },
              {}
            ],
            "responses": {
              "204": {
                "description": "Removed."
              },
              "401": {
                "$ref": "#/components/responses/Unauthorized"
              },
              "403": {
                "$ref": "#/components/responses/Forbidden"
              },
              "404": {
                "$ref": "#/components/responses/NotFound"
              },
              "405": {
                "$ref": "#/components/responses/MethodNotAllowed"
              },
              "503": {
                "$ref": "#/components/responses/Unavailable"
              }
            }
          }
        },
        "/api/v1/sheets/{id}/open": {
          "parameters": [
            {
              "$ref": "#/components/parameters/SheetID"
            }
          ],
          "post": {
            "operationId": "openSheet",
            "summary": "Show the sheet on every panel (sheet-open)",
            "tags": [
              "sheets"
            ],
            "requestBody": {
              "required": false,
              "content": {
                "application/json": {
                  "schema": {
                    "$ref": "#/components/schemas/SheetTime"
                  }
                }
              }
            },
            "security": [
              {
                "bearerAuth": []
              },
              {}
            ],
            "responses": {
              "200": {
                "$ref": "#/components/responses/Events"
              },
              "400": {
                "$ref": "#/components/responses/BadRequest"
              },
              "401": {
                "$ref": "#/components/responses/Unauthorized"
              },
              "404": {
                "$ref": "#/components/responses/NotFound"
              },
              "405": {
                "$ref": "#/components/responses/MethodNotAllowed"
              },
              "413": {
                "$ref": "#/components/responses/TooLarge"
              },
              "415": {
                "$ref": "#/components/responses/NotJSON"
              },
              "422": {
                "$ref": "#/components/responses/Invalid"
              },
              "503": {
                "$ref": "#/components/responses/Unavailable"
              }
            }
          }
        },
        "/api/v1/sheets/{id}/choose": {
          "parameters": [
            {
              "$ref": "#/components/parameters/SheetID"
            }
          ],
          "post": {
            "operationId": "chooseSheetOption",
            "summary": "Choose an option (select) and close",
            "tags": [
              "sheets"
            ],
            "requestBody": {
              "required": true,
              "content": {
                "application/json": {
                  "schema": {
                    "$ref": "#/components/schemas/SheetChoose"
                  }
                }
              }
            },
            "security": [
              {
                "bearerAuth": []
              },
              {}
            ],
            "responses": {
              "200": {
                "$ref": "#/components/responses/Events"
              },
              "400": {
                "$ref": "#/components/responses/BadRequest"
              },
              "401": {
                "$ref": "#/components/responses/Unauthorized"
              },
              "404": {
                "$ref": "#/components/responses/NotFound"
              },
              "405": {
                "$ref": "#/components/responses/MethodNotAllowed"
              },
              "413": {
                "$ref": "#/components/responses/TooLarge"
              },
              "415": {
                "$ref": "#/components/responses/NotJSON"
              },
              "422": {
                "$ref": "#/components/responses/Invalid"
              },
              "503": {
                "$ref": "#/components/responses/Unavailable"
              }
            }
          }
        },
        "/api/v1/sheets/{id}/cancel": {
          "parameters": [
            {
              "$ref": "#/components/parameters/SheetID"
            }
          ],
          "post": {
            "operationId": "cancelSheet",
            "summary": "Dismiss the sheet (sheet-cancel)",
            "tags": [
              "sheets"
            ],
            "requestBody": {
              "required": false,
              "content": {
                "application/json": {
                  "schema": {
                    "$ref": "#/components/schemas/SheetTime"
                  }
                }
              }
            },
            "security": [
              {
                "bearerAuth": []
              },
              {}
            ],
            "responses": {
              "200": {
                "$ref": "#/components/responses/Events"
              },
              "400": {
                "$ref": "#/components/responses/BadRequest"
              },
              "401": {
                "$ref": "#/components/responses/Unauthorized"
              },
              "404": {
                "$ref": "#/components/responses/NotFound"
              },
              "405": {
                "$ref": "#/components/responses/MethodNotAllowed"
              },
              "413": {
                "$ref": "#/components/responses/TooLarge"
              },
              "415": {
                "$ref": "#/components/responses/NotJSON"
              },
              "422": {
                "$ref": "#/components/responses/Invalid"
              },
              "503": {
                "$ref": "#/components/responses/Unavailable"
              }
            }
          }
        },
        "/api/v1/events": {
          "get": {
            "operationId": "listEvents",
            "summary": "Event history, oldest first",
            "tags": [
              "events"
            ],
            "description": "Without `after`, the newest `limit` events; with it, the first `limit` events after that seq. `offset` is validated but has no effect.",
            "parameters": [
              {
                "$ref": "#/components/parameters/After"
              },
              {
                "name": "limit",
                "in": "query",
                "required": false,
                "schema": {
                  "type": "integer",
                  "minimum": 1,
                  "maximum": 1000
                },
                "description": "At most this many (default 100); without `after`, the newest."
              },
              {
                "$ref": "#/components/parameters/Offset"
              },
              {
                "$ref": "#/components/parameters/SourceButton"
              },
              {
                "$ref": "#/components/parameters/SourceSheet"
              }
            ],
            "security": [
              {
                "bearerAuth": []
              },
              {}
            ],
            "responses": {
              "200": {
                "description": "OK",
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/EventList"
                    }
                  }
                }
              },
              "401": {
                "$ref": "#/components/responses/Unauthorized"
              },
              "422": {
                "$ref": "#/components/responses/Invalid"
              },
              "503": {
                "$ref": "#/components/responses/Unavailable"
              }
            }
          }
        },
        "/api/v1/events/stream": {
          "get": {
            "operationId": "streamEvents",
            "summary": "Live events as Server-Sent Events",
            "tags": [
              "events"
            ],
            "parameters": [
              {
                "$ref": "#/components/parameters/After"
              },
              {
                "$ref": "#/components/parameters/SourceButton"
              },
              {
                "$ref": "#/components/parameters/SourceSheet"
              },
              {
                "name": "Last-Event-ID",
                "in": "header",
                "required": false,
                "schema": {
                  "type": "integer",
                  "minimum": 0,
                  "maximum": 9223372036854775807
                },
                "description": "Resume after this seq (wins over `after`)."
              },
              {
                "name": "access_token",
                "in": "query",
                "required": false,
                "schema": {
                  "type": "string"
                },
                "description": "The token, for EventSource, which cannot send headers."
              }
            ],
            "security": [
              {
                "bearerAuth": []
              },
              {
                "accessToken": []
              },
              {}
            ],
            "responses": {
              "200": {
                "description": "`retry: 1000`, then one `id: SEQ` / `data: EVENT-JSON` message per event, and a `: heartbeat` comment every 15 s. History after `after` / `Last-Event-ID` comes first.",
                "content": {
                  "text/event-stream": {
                    "schema": {
                      "$ref": "#/components/schemas/StreamMessage"
                    }
                  }
                }
              },
              "401": {
                "$ref": "#/components/responses/Unauthorized"
              },
              "422": {
                "$ref": "#/components/responses/Invalid"
              },
              "503": {
                "$ref": "#/components/responses/Unavailable"
              }
            }
          }
        },
        "/api/v1/buttons/{id}/handlers": {
          "parameters": [
            {
              "$ref": "#/components/parameters/ButtonID"
            }
          ],
          "get": {
            "operationId": "listButtonHandlers",
            "summary": "The button's handlers",
            "tags": [
              "handlers"
            ],
            "security": [
              {
                "bearerAuth": []
              },
              {}
            ],
            "responses": {
              "200": {
                "description": "OK",
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/HandlerList"
                    }
                  }
                }
              },
              "401": {
                "$ref": "#/components/responses/Unauthorized"
              },
              "404": {
                "$ref": "#/components/responses/NotFound"
              },
              "405": {
                "$ref": "#/components/responses/MethodNotAllowed"
              }
            }
          },
          "post": {
            "operationId": "createButtonHandler",
            "summary": "Add a handler to the button",
            "tags": [
              "handlers"
            ],
            "requestBody": {
              "required": true,
              "content": {
                "application/json": {
                  "schema": {
                    "$ref": "#/components/schemas/ButtonHandlerCreate"
                  }
                }
              }
            },
            "security": [
              {
                "bearerAuth": []
              },
              {}
            ],
            "responses": {
              "201": {
                "description": "Created; a webhook's `secret` is shown this once.",
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/HandlerCreated"
                    }
                  }
                },
                "headers": {
                  "Location": {
                    "schema": {
                      "type": "string"
                    },
                    "description": "The new resource's path."
                  }
                }
              },
              "400": {
                "$ref": "#/components/responses/BadRequest"
              },
              "401": {
                "$ref": "#/components/responses/Unauthorized"
              },
              "403": {
                "$ref": "#/components/responses/Forbidden"
              },
              "404": {
                "$ref": "#/components/responses/NotFound"
              },
              "405": {
                "$ref": "#/components/responses/MethodNotAllowed"
              },
              "409": {
                "$ref": "#/components/responses/Conflict"
              },
              "413": {
                "$ref": "#/components/responses/TooLarge"
              },
              "415": {
                "$ref": "#/components/responses/NotJSON"
              },
              "422": {
                "$ref": "#/components/responses/Invalid"
              },
              "503": {
                "$ref": "#/components/responses/Unavailable"
              }
            }
          }
        },
        "/api/v1/sheets/{id}/handlers": {
          "parameters": [
            {
              "$ref": "#/components/parameters/SheetID"
            }
          ],
          "get": {
            "operationId": "listSheetHandlers",
            "summary": "The sheet's handlers",
            "tags": [
              "handlers"
            ],
            "security": [
              {
                "bearerAuth": []
              },
              {}
            ],
            "responses": {
              "200": {
                "description": "OK",
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/HandlerList"
                    }
                  }
                }
              },
              "401": {
                "$ref": "#/components/responses/Unauthorized"
              },
              "404": {
                "$ref": "#/components/responses/NotFound"
              },
              "405": {
                "$ref": "#/components/responses/MethodNotAllowed"
              }
            }
          },
          "post": {
            "operationId": "createSheetHandler",
            "summary": "Add a handler to the sheet",
            "tags": [
              "handlers"
            ],
            "requestBody": {
              "required": true,
              "content": {
                "application/json": {
                  "schema": {
                    "$ref": "#/components/schemas/SheetHandlerCreate"
                  }
                }
              }
            },
            "security": [
              {
                "bearerAuth": []
              },
              {}
            ],
            "responses": {
              "201": {
                "description": "Created; a webhook's `secret` is shown this once.",
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/HandlerCreated"
                    }
                  }
                },
                "headers": {
                  "Location": {
                    "schema": {
                      "type": "string"
                    },
                    "description": "The new resource's path."
                  }
                }
              },
              "400": {
                "$ref": "#/components/responses/BadRequest"
              },
              "401": {
                "$ref": "#/components/responses/Unauthorized"
              },
              "403": {
                "$ref": "#/components/responses/Forbidden"
              },
              "404": {
                "$ref": "#/components/responses/NotFound"
              },
              "405": {
                "$ref": "#/components/responses/MethodNotAllowed"
              },
              "409": {
                "$ref": "#/components/responses/Conflict"
              },
              "413": {
                "$ref": "#/components/responses/TooLarge"
              },
              "415": {
                "$ref": "#/components/responses/NotJSON"
              },
              "422": {
                "$ref": "#/components/responses/Invalid"
              },
              "503": {
                "$ref": "#/components/responses/Unavailable"
              }
            }
          }
        },
        "/api/v1/handlers/{hid}": {
          "parameters": [
            {
              "$ref": "#/components/parameters/HandlerID"
            }
          ],
          "get": {
            "operationId": "getHandler",
            "summary": "Read a handler",
            "tags": [
              "handlers"
            ],
            "security": [
              {
                "bearerAuth": []
              },
              {}
            ],
            "responses": {
              "200": {
                "description": "OK",
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/Handler"
                    }
                  }
                }
              },
              "401": {
                "$ref": "#/components/responses/Unauthorized"
              },
              "404": {
                "$ref": "#/components/responses/NotFound"
              },
              "405": {
                "$ref": "#/components/responses/MethodNotAllowed"
              }
            }
          },
          "patch": {
            "operationId": "updateHandler",
            "summary": "Change a handler (enable/disable, events, target)",
            "tags": [
              "handlers"
            ],
            "requestBody": {
              "required": false,
              "content": {
                "application/json": {
                  "schema": {
                    "$ref": "#/components/schemas/HandlerPatch"
                  }
                }
              }
            },
            "security": [
              {
                "bearerAuth": []
              },
              {}
            ],
            "responses": {
              "200": {
                "description": "OK",
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/Handler"
                    }
                  }
                }
              },
              "400": {
                "$ref": "#/components/responses/BadRequest"
              },
              "401": {
                "$ref": "#/components/responses/Unauthorized"
              },
              "403": {
                "$ref": "#/components/responses/Forbidden"
              },
              "404": {
                "$ref": "#/components/responses/NotFound"
              },
              "405": {
                "$ref": "#/components/responses/MethodNotAllowed"
              },
              "413": {
                "$ref": "#/components/responses/TooLarge"
              },
              "415": {
                "$ref": "#/components/responses/NotJSON"
              },
              "422": {
                "$ref": "#/components/responses/Invalid"
              },
              "503": {
                "$ref": "#/components/responses/Unavailable"
              }
            }
          },
          "delete": {
            "operationId": "deleteHandler",
            "summary": "Remove a handler",
            "tags": [
              "handlers"
            ],
            "security": [
              {
                "bearerAuth": []
              },
              {}
            ],
            "responses": {
              "204": {
                "description": "Removed."
              },
              "401": {
                "$ref": "#/components/responses/Unauthorized"
              },
              "403": {
                "$ref": "#/components/responses/Forbidden"
              },
              "404": {
                "$ref": "#/components/responses/NotFound"
              },
              "405": {
                "$ref": "#/components/responses/MethodNotAllowed"
              },
              "503": {
                "$ref": "#/components/responses/Unavailable"
              }
            }
          }
        },
        "/api/v1/handlers/{hid}/test": {
          "parameters": [
            {
              "$ref": "#/components/parameters/HandlerID"
            }
          ],
          "post": {
            "operationId": "testHandler",
            "summary": "Deliver a synthetic event now",
            "tags": [
              "handlers"
            ],
            "description": "Any request body is ignored.",
            "security": [
              {
                "bearerAuth": []
              },
              {}
            ],
            "responses": {
              "202": {
                "description": "Queued; follow it in the delivery log.",
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/Delivery"
                    }
                  }
                }
              },
              "401": {
                "$ref": "#/components/responses/Unauthorized"
              },
              "403": {
                "$ref": "#/components/responses/Forbidden"
              },
              "404": {
                "$ref": "#/components/responses/NotFound"
              },
              "405": {
                "$ref": "#/components/responses/MethodNotAllowed"
              },
              "503": {
                "$ref": "#/components/responses/Unavailable"
              }
            }
          }
        },
        "/api/v1/handlers/{hid}/rotate-secret": {
          "parameters": [
            {
              "$ref": "#/components/parameters/HandlerID"
            }
          ],
          "post": {
            "operationId": "rotateSecret",
            "summary": "A new webhook secret, returned once",
            "tags": [
              "handlers"
            ],
            "description": "Any request body is ignored. 409 `not_webhook` for a script handler.",
            "security": [
              {
                "bearerAuth": []
              },
              {}
            ],
            "responses": {
              "200": {
                "description": "OK",
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/Secret"
                    }
                  }
                }
              },
              "401": {
                "$ref": "#/components/responses/Unauthorized"
              },
              "403": {
                "$ref": "#/components/responses/Forbidden"
              },
              "404": {
                "$ref": "#/components/responses/NotFound"
              },
              "405": {
                "$ref": "#/components/responses/MethodNotAllowed"
              },
              "409": {
                "$ref": "#/components/responses/Conflict"
              },
              "503": {
                "$ref": "#/components/responses/Unavailable"
              }
            }
          }
        },
        "/api/v1/config": {
          "get": {
            "operationId": "exportConfig",
            "summary": "Export buttons, sheets and handlers (no secrets)",
            "tags": [
              "config"
            ],
            "security": [
              {
                "bearerAuth": []
              },
              {}
            ],
            "responses": {
              "200": {
                "description": "OK",
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/Config"
                    }
                  }
                }
              },
              "401": {
                "$ref": "#/components/responses/Unauthorized"
              }
            }
          },
          "put": {
            "operationId": "importConfig",
            "summary": "Replace the registry with a config",
            "tags": [
              "config"
            ],
            "requestBody": {
              "required": true,
              "content": {
                "application/json": {
                  "schema": {
                    "$ref": "#/components/schemas/ConfigImport"
                  }
                }
              }
            },
            "security": [
              {
                "bearerAuth": []
              },
              {}
            ],
            "responses": {
              "200": {
                "description": "OK",
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/ConfigImported"
                    }
                  }
                }
              },
              "400": {
                "$ref": "#/components/responses/BadRequest"
              },
              "401": {
                "$ref": "#/components/responses/Unauthorized"
              },
              "403": {
                "$ref": "#/components/responses/Forbidden"
              },
              "413": {
                "$ref": "#/components/responses/TooLarge"
              },
              "415": {
                "$ref": "#/components/responses/NotJSON"
              },
              "422": {
                "$ref": "#/components/responses/Invalid"
              },
              "503": {
                "$ref": "#/components/responses/Unavailable"
              }
            }
          }
        },
        "/api/v1/deliveries": {
          "get": {
            "operationId": "listDeliveries",
            "summary": "The delivery log",
            "tags": [
              "deliveries"
            ],
            "description": "Newest first. Finished deliveries are kept up to `--delivery-retention` (oldest dropped first) and go with their handler when it is deleted; unfinished ones are always listed. Reading never stalls input.",
            "parameters": [
              {
                "name": "handler",
                "in": "query",
                "required": false,
                "schema": {
                  "type": "string"
                },
                "description": "Only this handler's deliveries."
              },
              {
                "name": "status",
                "in": "query",
                "required": false,
                "schema": {
                  "type": "string",
                  "enum": [
                    "pending",
                    "in_flight",
                    "ok",
                    "failed",
                    "expired",
                    "blocked"
                  ]
                },
                "description": "Only deliveries in this status."
              },
              {
                "name": "limit",
                "in": "query",
                "required": false,
                "schema": {
                  "type": "integer",
                  "minimum": 1,
                  "maximum": 1000
                },
                "description": "At most this many (default 100)."
              },
              {
                "$ref": "#/components/parameters/Offset"
              },
              {
                "name": "before",
                "in": "query",
                "required": false,
                "schema": {
                  "type": "string",
                  "pattern": "^dlv_[0-9a-z]+$"
                },
                "description": "Only deliveries older than this one (the `next` of the previous page)."
              }
            ],
            "security": [
              {
                "bearerAuth": []
              },
              {}
            ],
            "responses": {
              "200": {
                "description": "OK",
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/DeliveryList"
                    }
                  }
                }
              },
              "401": {
                "$ref": "#/components/responses/Unauthorized"
              },
              "422": {
                "$ref": "#/components/responses/Invalid"
              },
              "503": {
                "$ref": "#/components/responses/Unavailable"
              }
            }
          }
        },
        "/api/v1/deliveries/{did}": {
          "parameters": [
            {
              "$ref": "#/components/parameters/DeliveryID"
            }
          ],
          "get": {
            "operationId": "getDelivery",
            "summary": "One delivery with its attempts and event",
            "tags": [
              "deliveries"
            ],
            "security": [
              {
                "bearerAuth": []
              },
              {}
            ],
            "responses": {
              "200": {
                "description": "OK",
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/DeliveryDetail"
                    }
                  }
                }
              },
              "401": {
                "$ref": "#/components/responses/Unauthorized"
              },
              "404": {
                "$ref": "#/components/responses/NotFound"
              },
              "405": {
                "$ref": "#/components/responses/MethodNotAllowed"
              },
              "503": {
                "$ref": "#/components/responses/Unavailable"
              }
            }
          }
        },
        "/api/v1/deliveries/{did}/redeliver": {
          "parameters": [
            {
              "$ref": "#/components/parameters/DeliveryID"
            }
          ],
          "post": {
            "operationId": "redeliver",
            "summary": "One more attempt now",
            "tags": [
              "deliveries"
            ],
            "description": "Any request body is ignored. 409 `in_flight` while an attempt is running.",
            "security": [
              {
                "bearerAuth": []
              },
              {}
            ],
            "responses": {
              "202": {
                "description": "Queued.",
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/Delivery"
                    }
                  }
                }
              },
              "401": {
                "$ref": "#/components/responses/Unauthorized"
              },
              "403": {
                "$ref": "#/components/responses/Forbidden"
              },
              "404": {
                "$ref": "#/components/responses/NotFound"
              },
              "405": {
                "$ref": "#/components/responses/MethodNotAllowed"
              },
              "409": {
                "$ref": "#/components/responses/Conflict"
              },
              "503": {
                "$ref": "#/components/responses/Unavailable"
              }
            }
          }
        },
        "/api/v1/mqtt": {
          "get": {
            "operationId": "getMQTT",
            "summary": "The MQTT broker connection (admin token)",
            "tags": [
              "server"
            ],
            "description": "Whether buttond is connected to its broker (`--mqtt-url`), the last error, and counts. `{\"enabled\": false}` without MQTT. The broker is not buttond's health: `/healthz` stays `ok` while it is away.",
            "responses": {
              "200": {
                "description": "The connection.",
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/MQTTStatus"
                    }
                  }
                }
              },
              "401": {
                "$ref": "#/components/responses/Unauthorized"
              },
              "403": {
                "$ref": "#/components/responses/Forbidden"
              }
            }
          }
        },
        "/api/v1/icons": {
          "get": {
            "operationId": "listIcons",
            "summary": "The panel's icon names",
            "tags": [
              "buttons"
            ],
            "description": "The names a button's `icon` may take: the panel's bundled SVG icons (`/icons/NAME.svg`).",
            "responses": {
              "200": {
                "description": "The names.",
                "content": {
                  "application/json": {
                    "schema": {
                      "type": "object",
                      "required": [
                        "icons"
                      ],
                      "additionalProperties": false,
                      "properties": {
                        "icons": {
                          "type": "array",
                          "items": {
                            "type": "string"
                          }
                        }
                      }
                    }
                  }
                }
              },
              "401": {
                "$ref": "#/components/responses/Unauthorized"
              }
            }
          }
        },
        "/api/v1/buttons/{id}/reset": {
          "parameters": [
            {
              "$ref": "#/components/parameters/ButtonID"
            }
          ],
          "post": {
            "operationId": "resetButton",
            "summary": "Puts a button back to rest (admin)",
            "tags": [
              "input"
            ],
            "requestBody": {
              "required": false,
              "content": {
                "application/json": {
                  "schema": {
                    "type": "object",
                    "additionalProperties": false,
                    "properties": {}
                  }
                }
              }
            },
            "security": [
              {
                "bearerAuth": []
              },
              {}
            ],
            "responses": {
              "200": {
                "$ref": "#/components/responses/Events"
              },
              "400": {
                "$ref": "#/components/responses/BadRequest"
              },
              "401": {
                "$ref": "#/components/responses/Unauthorized"
              },
              "403": {
                "$ref": "#/components/responses/Forbidden"
              },
              "404": {
                "$ref": "#/components/responses/NotFound"
              },
              "405": {
                "$ref": "#/components/responses/MethodNotAllowed"
              },
              "409": {
                "$ref": "#/components/responses/Conflict"
              },
              "413": {
                "$ref": "#/components/responses/TooLarge"
              },
              "415": {
                "$ref": "#/components/responses/NotJSON"
              },
              "422": {
                "$ref": "#/components/responses/Invalid"
              },
              "503": {
                "$ref": "#/components/responses/Unavailable"
              }
            },
            "description": "A held button gets `touch-cancel` with `reason: \"reset\"`, an unfinished tap series ends with its n-tap event, the face stays, and the button's clock is set to the server clock (after a client pushed it ahead, say). Answers with the events it made."
          }
        }
      },
      "components": {
        "schemas": {
          "Error": {
            "type": "object",
            "description": "Every error, with any status: a stable `code`, a message for people, and for a bad field its `field` (a path such as `faces[1].label`) and in a batch the input's `index`.",
            "required": [
              "error"
            ],
            "additionalProperties": false,
            "properties": {
              "error": {
                "type": "object",
                "required": [
                  "code",
                  "message"
                ],
                "additionalProperties": false,
                "properties": {
                  "code": {
                    "type": "string",
                    "examples": [
                      "not_found",
                      "invalid_value",
                      "bad_request",
                      "out_of_order"
                    ]
                  },
                  "message": {
                    "type": "string"
                  },
                  "field": {
                    "type": "string"
                  },
                  "index": {
                    "type": "integer",
                    "minimum": 0
                  }
                }
              }
            }
          },
          "Name": {
            "type": "string",
            "pattern": "^[a-z0-9][a-z0-9._-]{0,63}$",
            "description": "A button, sheet or option name."
          },
          "Time": {
            "type": "integer",
            "minimum": 0,
            "maximum": 9007199254740992,
            "description": "Milliseconds since the Unix epoch (`Date.now()`); absent means now."
          },
          "EventType": {
            "type": "string",
            "enum": [
              "touch-down",
              "touch-drag-exit",
              "touch-drag-enter",
              "touch-up-inside",
              "touch-up-outside",
              "touch-cancel",
              "long-press",
              "long-press-end",
              "repeat",
              "tap",
              "toggle",
              "single-tap",
              "double-tap",
              "triple-tap",
              "quadruple-tap",
              "quintuple-tap",
              "sheet-open",
              "select",
              "sheet-cancel"
            ]
          },
          "EventData": {
            "type": "object",
            "additionalProperties": false,
            "description": "What the event type needs; absent members are left out.",
            "properties": {
              "durationMs": {
                "type": "integer"
              },
              "tapCount": {
                "type": "integer"
              },
              "face": {
                "type": "integer",
                "enum": [
                  0,
                  1
                ]
              },
              "previousFace": {
                "type": "integer",
                "enum": [
                  0,
                  1
                ]
              },
              "repeat": {
                "type": "integer",
                "minimum": 1
              },
              "option": {
                "type": "string"
              },
              "index": {
                "type": "integer",
                "minimum": 0
              },
              "reason": {
                "type": "string",
                "enum": [
                  "max-hold",
                  "restart"
                ]
              },
              "pointer": {
                "type": "string"
              }
            }
          },
          "Event": {
            "type": "object",
            "description": "A control event; the same bytes in responses, the stream, the history, webhook bodies and script stdin. `button` for button events, `sheet` for sheet events.",
            "required": [
              "id",
              "seq",
              "type",
              "t",
              "at",
              "data"
            ],
            "additionalProperties": false,
            "properties": {
              "id": {
                "type": "string",
                "pattern": "^evt_"
              },
              "seq": {
                "type": "integer",
                "minimum": 0,
                "description": "Grows by one per event; 0 only on a handler test event."
              },
              "type": {
                "$ref": "#/components/schemas/EventType"
              },
              "button": {
                "type": "string"
              },
              "sheet": {
                "type": "string"
              },
              "t": {
                "type": "integer"
              },
              "at": {
                "type": "string",
                "pattern": "^[0-9]{4,}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$",
                "description": "`t` as ISO-8601 UTC with milliseconds."
              },
              "data": {
                "$ref": "#/components/schemas/EventData"
              }
            },
            "oneOf": [
              {
                "required": [
                  "button"
                ]
              },
              {
                "required": [
                  "sheet"
                ]
              }
            ]
          },
          "StreamMessage": {
            "type": "object",
            "description": "One server-sent event as a client parses it: `id` is the seq, `data` the event JSON. The first message carries only `retry: 1000`; comments (`: connected`, `: heartbeat`) are not messages.",
            "additionalProperties": false,
            "properties": {
              "id": {
                "type": "string",
                "pattern": "^[0-9]+$"
              },
              "event": {
                "type": "string",
                "const": "message"
              },
              "retry": {
                "type": "integer",
                "const": 1000
              },
              "data": {
                "type": "string",
                "contentMediaType": "application/json",
                "contentSchema": {
                  "$ref": "#/components/schemas/Event"
                }
              }
            }
          },
          "EventList": {
            "type": "object",
            "required": [
              "events"
            ],
            "additionalProperties": false,
            "properties": {
              "events": {
                "type": "array",
                "items": {
                  "$ref": "#/components/schemas/Event"
                }
              }
            }
          },
          "ButtonState": {
            "type": "object",
            "required": [
              "held",
              "face",
              "tapCount"
            ],
            "additionalProperties": false,
            "properties": {
              "held": {
                "type": "boolean"
              },
              "face": {
                "type": "integer",
                "enum": [
                  0,
                  1
                ]
              },
              "tapCount": {
                "type": "integer",
                "minimum": 0
              }
            }
          },
          "Face": {
            "type": "object",
            "required": [
              "label"
            ],
            "additionalProperties": false,
            "properties": {
              "label": {
                "type": "string",
                "maxLength": 64
              },
              "color": {
                "type": "string",
                "minLength": 1,
                "maxLength": 32,
                "pattern": "^[0-9A-Za-z#(),.% -]+$",
                "description": "A CSS colour: hex, rgb()/hsl() or a name."
              }
            }
          },
          "Flip": {
            "type": "object",
            "required": [
              "transition",
              "curve",
              "durationMs"
            ],
            "additionalProperties": false,
            "properties": {
              "transition": {
                "type": "string",
                "enum": [
                  "flip-from-left",
                  "flip-from-right",
                  "curl-up",
                  "curl-down",
                  "cross-dissolve",
                  "none"
                ]
              },
              "curve": {
                "type": "string",
                "enum": [
                  "ease-in-out",
                  "ease-in",
                  "ease-out",
                  "linear"
                ]
              },
              "durationMs": {
                "type": "integer",
                "minimum": 0,
                "maximum": 5000
              }
            }
          },
          "Button": {
            "type": "object",
            "description": "A button with its live state. `faces` and `flip` appear for toggles (and for push buttons given faces).",
            "required": [
              "id",
              "label",
              "kind",
              "longPressMs",
              "multiTapMs",
              "maxTaps",
              "repeatMs",
              "maxHoldMs",
              "state"
            ],
            "additionalProperties": false,
            "properties": {
              "id": {
                "$ref": "#/components/schemas/Name"
              },
              "label": {
                "type": "string",
                "maxLength": 64
              },
              "kind": {
                "type": "string",
                "enum": [
                  "push",
                  "toggle"
                ]
              },
              "longPressMs": {
                "type": "integer",
                "minimum": 50,
                "maximum": 60000
              },
              "multiTapMs": {
                "type": "integer",
                "minimum": 50,
                "maximum": 5000
              },
              "maxTaps": {
                "type": "integer",
                "minimum": 1,
                "maximum": 5
              },
              "repeatMs": {
                "type": "integer",
                "minimum": 0,
                "maximum": 60000
              },
              "maxHoldMs": {
                "type": "integer",
                "minimum": 1000,
                "maximum": 3600000
              },
              "faces": {
                "type": "array",
                "minItems": 2,
                "maxItems": 2,
                "items": {
                  "$ref": "#/components/schemas/Face"
                }
              },
              "flip": {
                "$ref": "#/components/schemas/Flip"
              },
              "order": {
                "type": "integer",
                "minimum": -1000000000,
                "maximum": 1000000000
              },
              "group": {
                "type": "string",
                "maxLength": 64
              },
              "state": {
                "$ref": "#/components/schemas/ButtonState"
              },
              "color": {
                "type": [
                  "string",
                  "null"
                ],
                "pattern": "^#[0-9a-fA-F]{6}$",
                "description": "The key's colour; a toggle's faces keep their own. null clears it."
              },
              "size": {
                "type": "string",
                "enum": [
                  "1x1",
                  "2x1",
                  "1x2",
                  "2x2"
                ],
                "description": "Grid cells the key takes (default 1x1)."
              },
              "status": {
                "type": [
                  "string",
                  "null"
                ],
                "maxLength": 32,
                "description": "A live line shown on the key (\"ON AIR\", \"21.5 °C\"); null clears it."
              },
              "icon": {
                "type": [
                  "string",
                  "null"
                ],
                "pattern": "^[a-z0-9-]{1,32}$",
                "description": "A name from GET /api/v1/icons; null clears it."
              },
              "health": {
                "$ref": "#/components/schemas/Health"
              }
            }
          },
          "ButtonList": {
            "type": "object",
            "required": [
              "buttons",
              "total"
            ],
            "additionalProperties": false,
            "properties": {
              "buttons": {
                "type": "array",
                "items": {
                  "$ref": "#/components/schemas/Button"
                }
              },
              "total": {
                "type": "integer",
                "minimum": 0,
                "description": "All buttons, whatever the page."
              }
            }
          },
          "ButtonCreate": {
            "type": "object",
            "required": [
              "id"
            ],
            "additionalProperties": false,
            "description": "Unknown members are refused (422). Every optional member may be null, which reads as absent.",
            "properties": {
              "id": {
                "$ref": "#/components/schemas/Name"
              },
              "label": {
                "type": [
                  "string",
                  "null"
                ],
                "maxLength": 64
              },
              "kind": {
                "type": [
                  "string",
                  "null"
                ],
                "enum": [
                  "push",
                  "toggle",
                  null
                ]
              },
              "longPressMs": {
                "type": [
                  "integer",
                  "null"
                ],
                "minimum": 50,
                "maximum": 60000
              },
              "multiTapMs": {
                "type": [
                  "integer",
                  "null"
                ],
                "minimum": 50,
                "maximum": 5000
              },
              "maxTaps": {
                "type": [
                  "integer",
                  "null"
                ],
                "minimum": 1,
                "maximum": 5
              },
              "repeatMs": {
                "type": [
                  "integer",
                  "null"
                ],
                "minimum": 0,
                "maximum": 60000,
                "not": {
                  "type": "integer",
                  "minimum": 1,
                  "maximum": 49
                },
                "description": "0 (off) or 50–60000."
              },
              "maxHoldMs": {
                "type": [
                  "integer",
                  "null"
                ],
                "minimum": 1000,
                "maximum": 3600000
              },
              "faces": {
                "type": [
                  "array",
                  "null"
                ],
                "minItems": 2,
                "maxItems": 2,
                "items": {
                  "type": "object",
                  "required": [
                    "label"
                  ],
                  "additionalProperties": false,
                  "properties": {
                    "label": {
                      "type": "string",
                      "maxLength": 64
                    },
                    "color": {
                      "type": [
                        "string",
                        "null"
                      ],
                      "minLength": 1,
                      "maxLength": 32,
                      "pattern": "^[0-9A-Za-z#(),.% -]+$",
                      "description": "A CSS colour: hex, rgb()/hsl() or a name."
                    }
                  }
                }
              },
              "flip": {
                "type": [
                  "object",
                  "null"
                ],
                "additionalProperties": false,
                "properties": {
                  "transition": {
                    "type": [
                      "string",
                      "null"
                    ],
                    "enum": [
                      "flip-from-left",
                      "flip-from-right",
                      "curl-up",
                      "curl-down",
                      "cross-dissolve",
                      "none",
                      null
                    ]
                  },
                  "curve": {
                    "type": [
                      "string",
                      "null"
                    ],
                    "enum": [
                      "ease-in-out",
                      "ease-in",
                      "ease-out",
                      "linear",
                      null
                    ]
                  },
                  "durationMs": {
                    "type": [
                      "integer",
                      "null"
                    ],
                    "minimum": 0,
                    "maximum": 5000
                  }
                }
              },
              "order": {
                "type": [
                  "integer",
                  "null"
                ],
                "minimum": -1000000000,
                "maximum": 1000000000
              },
              "group": {
                "type": [
                  "string",
                  "null"
                ],
                "maxLength": 64
              },
              "state": {
                "description": "Read-only: accepted (any value) and ignored, so a GET body can be sent back."
              },
              "color": {
                "type": [
                  "string",
                  "null"
                ],
                "pattern": "^#[0-9a-fA-F]{6}$",
                "description": "The key's colour; a toggle's faces keep their own. null clears it."
              },
              "size": {
                "type": "string",
                "enum": [
                  "1x1",
                  "2x1",
                  "1x2",
                  "2x2"
                ],
                "description": "Grid cells the key takes (default 1x1)."
              },
              "status": {
                "type": [
                  "string",
                  "null"
                ],
                "maxLength": 32,
                "description": "A live line shown on the key (\"ON AIR\", \"21.5 °C\"); null clears it."
              },
              "icon": {
                "type": [
                  "string",
                  "null"
                ],
                "pattern": "^[a-z0-9-]{1,32}$",
                "description": "A name from GET /api/v1/icons; null clears it."
              }
            }
          },
          "ButtonPatch": {
            "type": "object",
            "additionalProperties": false,
            "description": "Only the members given change; `id`, if given, must be the button's own.",
            "properties": {
              "id": {
                "anyOf": [
                  {
                    "$ref": "#/components/schemas/Name"
                  },
                  {
                    "type": "null"
                  }
                ]
              },
              "label": {
                "type": [
                  "string",
                  "null"
                ],
                "maxLength": 64
              },
              "kind": {
                "type": [
                  "string",
                  "null"
                ],
                "enum": [
                  "push",
                  "toggle",
                  null
                ]
              },
              "longPressMs": {
                "type": [
                  "integer",
                  "null"
                ],
                "minimum": 50,
                "maximum": 60000
              },
              "multiTapMs": {
                "type": [
                  "integer",
                  "null"
                ],
                "minimum": 50,
                "maximum": 5000
              },
              "maxTaps": {
                "type": [
                  "integer",
                  "null"
                ],
                "minimum": 1,
                "maximum": 5
              },
              "repeatMs": {
                "type": [
                  "integer",
                  "null"
                ],
                "minimum": 0,
                "maximum": 60000,
                "not": {
                  "type": "integer",
                  "minimum": 1,
                  "maximum": 49
                },
                "description": "0 (off) or 50–60000."
              },
              "maxHoldMs": {
                "type": [
                  "integer",
                  "null"
                ],
                "minimum": 1000,
                "maximum": 3600000
              },
              "faces": {
                "type": [
                  "array",
                  "null"
                ],
                "minItems": 2,
                "maxItems": 2,
                "items": {
                  "type": "object",
                  "required": [
                    "label"
                  ],
                  "additionalProperties": false,
                  "properties": {
                    "label": {
                      "type": "string",
                      "maxLength": 64
                    },
                    "color": {
                      "type": [
                        "string",
                        "null"
                      ],
                      "minLength": 1,
                      "maxLength": 32,
                      "pattern": "^[0-9A-Za-z#(),.% -]+$",
                      "description": "A CSS colour: hex, rgb()/hsl() or a name."
                    }
                  }
                }
              },
              "flip": {
                "type": [
                  "object",
                  "null"
                ],
                "additionalProperties": false,
                "properties": {
                  "transition": {
                    "type": [
                      "string",
                      "null"
                    ],
                    "enum": [
                      "flip-from-left",
                      "flip-from-right",
                      "curl-up",
                      "curl-down",
                      "cross-dissolve",
                      "none",
                      null
                    ]
                  },
                  "curve": {
                    "type": [
                      "string",
                      "null"
                    ],
                    "enum": [
                      "ease-in-out",
                      "ease-in",
                      "ease-out",
                      "linear",
                      null
                    ]
                  },
                  "durationMs": {
                    "type": [
                      "integer",
                      "null"
                    ],
                    "minimum": 0,
                    "maximum": 5000
                  }
                }
              },
              "order": {
                "type": [
                  "integer",
                  "null"
                ],
                "minimum": -1000000000,
                "maximum": 1000000000
              },
              "group": {
                "type": [
                  "string",
                  "null"
                ],
                "maxLength": 64
              },
              "state": {
                "description": "Read-only: accepted (any value) and ignored, so a GET body can be sent back."
              },
              "color": {
                "type": [
                  "string",
                  "null"
                ],
                "pattern": "^#[0-9a-fA-F]{6}$",
                "description": "The key's colour; a toggle's faces keep their own. null clears it."
              },
              "size": {
                "type": "string",
                "enum": [
                  "1x1",
                  "2x1",
                  "1x2",
                  "2x2"
                ],
                "description": "Grid cells the key takes (default 1x1)."
              },
              "status": {
                "type": [
                  "string",
                  "null"
                ],
                "maxLength": 32,
                "description": "A live line shown on the key (\"ON AIR\", \"21.5 °C\"); null clears it."
              },
              "icon": {
                "type": [
                  "string",
                  "null"
                ],
                "pattern": "^[a-z0-9-]{1,32}$",
                "description": "A name from GET /api/v1/icons; null clears it."
              }
            }
          },
          "SheetOption": {
            "type": "object",
            "required": [
              "id",
              "label",
              "destructive"
            ],
            "additionalProperties": false,
            "properties": {
              "id": {
                "$ref": "#/components/schemas/Name"
              },
              "label": {
                "type": "string",
                "maxLength": 64
              },
              "destructive": {
                "type": "boolean"
              }
            }
          },
          "Sheet": {
            "type": "object",
            "required": [
              "id",
              "title",
              "cancelLabel",
              "options",
              "state"
            ],
            "additionalProperties": false,
            "properties": {
              "id": {
                "$ref": "#/components/schemas/Name"
              },
              "title": {
                "type": "string",
                "maxLength": 128
              },
              "cancelLabel": {
                "type": "string",
                "maxLength": 64
              },
              "options": {
                "type": "array",
                "minItems": 1,
                "maxItems": 32,
                "items": {
                  "$ref": "#/components/schemas/SheetOption"
                }
              },
              "state": {
                "type": "object",
                "required": [
                  "open"
                ],
                "additionalProperties": false,
                "properties": {
                  "open": {
                    "type": "boolean"
                  }
                }
              },
              "health": {
                "$ref": "#/components/schemas/Health"
              }
            }
          },
          "SheetList": {
            "type": "object",
            "required": [
              "sheets"
            ],
            "additionalProperties": false,
            "properties": {
              "sheets": {
                "type": "array",
                "items": {
                  "$ref": "#/components/schemas/Sheet"
                }
              }
            }
          },
          "SheetCreate": {
            "type": "object",
            "required": [
              "id",
              "options"
            ],
            "additionalProperties": false,
            "description": "Option ids must be unique (422 otherwise).",
            "properties": {
              "id": {
                "$ref": "#/components/schemas/Name"
              },
              "title": {
                "type": [
                  "string",
                  "null"
                ],
                "maxLength": 128
              },
              "cancelLabel": {
                "type": [
                  "string",
                  "null"
                ],
                "maxLength": 64
              },
              "state": {
                "description": "Read-only: accepted (any value) and ignored."
              },
              "options": {
                "type": "array",
                "minItems": 1,
                "maxItems": 32,
                "items": {
                  "type": "object",
                  "required": [
                    "id"
                  ],
                  "additionalProperties": false,
                  "properties": {
                    "id": {
                      "$ref": "#/components/schemas/Name"
                    },
                    "label": {
                      "type": [
                        "string",
                        "null"
                      ],
                      "maxLength": 64
                    },
                    "destructive": {
                      "type": [
                        "boolean",
                        "null"
                      ]
                    }
                  }
                }
              }
            }
          },
          "SheetPatch": {
            "type": "object",
            "additionalProperties": false,
            "properties": {
              "id": {
                "anyOf": [
                  {
                    "$ref": "#/components/schemas/Name"
                  },
                  {
                    "type": "null"
                  }
                ]
              },
              "title": {
                "type": [
                  "string",
                  "null"
                ],
                "maxLength": 128
              },
              "cancelLabel": {
                "type": [
                  "string",
                  "null"
                ],
                "maxLength": 64
              },
              "state": {
                "description": "Read-only: accepted (any value) and ignored."
              },
              "options": {
                "type": [
                  "array",
                  "null"
                ],
                "minItems": 1,
                "maxItems": 32,
                "items": {
                  "type": "object",
                  "required": [
                    "id"
                  ],
                  "additionalProperties": false,
                  "properties": {
                    "id": {
                      "$ref": "#/components/schemas/Name"
                    },
                    "label": {
                      "type": [
                        "string",
                        "null"
                      ],
                      "maxLength": 64
                    },
                    "destructive": {
                      "type": [
                        "boolean",
                        "null"
                      ]
                    }
                  }
                }
              }
            }
          },
          "SheetTime": {
            "type": "object",
            "additionalProperties": false,
            "properties": {
              "t": {
                "anyOf": [
                  {
                    "$ref": "#/components/schemas/Time"
                  },
                  {
                    "type": "null"
                  }
                ]
              }
            }
          },
          "SheetChoose": {
            "type": "object",
            "required": [
              "option"
            ],
            "additionalProperties": false,
            "properties": {
              "option": {
                "description": "The option's id, its index, or its index as decimal digits.",
                "anyOf": [
                  {
                    "type": "string"
                  },
                  {
                    "type": "integer"
                  }
                ]
              },
              "t": {
                "anyOf": [
                  {
                    "$ref": "#/components/schemas/Time"
                  },
                  {
                    "type": "null"
                  }
                ]
              }
            }
          },
          "InputDown": {
            "type": "object",
            "additionalProperties": false,
            "properties": {
              "t": {
                "anyOf": [
                  {
                    "$ref": "#/components/schemas/Time"
                  },
                  {
                    "type": "null"
                  }
                ]
              },
              "pointer": {
                "description": "The pointer id: a string of at most 64 characters or an integer.",
                "anyOf": [
                  {
                    "type": "string",
                    "maxLength": 64
                  },
                  {
                    "type": "integer"
                  },
                  {
                    "type": "null"
                  }
                ]
              }
            }
          },
          "InputMove": {
            "type": "object",
            "required": [
              "inside"
            ],
            "additionalProperties": false,
            "properties": {
              "t": {
                "anyOf": [
                  {
                    "$ref": "#/components/schemas/Time"
                  },
                  {
                    "type": "null"
                  }
                ]
              },
              "inside": {
                "type": "boolean"
              },
              "pointer": {
                "description": "The pointer id: a string of at most 64 characters or an integer.",
                "anyOf": [
                  {
                    "type": "string",
                    "maxLength": 64
                  },
                  {
                    "type": "integer"
                  },
                  {
                    "type": "null"
                  }
                ]
              }
            }
          },
          "InputUp": {
            "type": "object",
            "additionalProperties": false,
            "description": "`inside` defaults to the last move, else true.",
            "properties": {
              "t": {
                "anyOf": [
                  {
                    "$ref": "#/components/schemas/Time"
                  },
                  {
                    "type": "null"
                  }
                ]
              },
              "inside": {
                "type": [
                  "boolean",
                  "null"
                ]
              },
              "pointer": {
                "description": "The pointer id: a string of at most 64 characters or an integer.",
                "anyOf": [
                  {
                    "type": "string",
                    "maxLength": 64
                  },
                  {
                    "type": "integer"
                  },
                  {
                    "type": "null"
                  }
                ]
              }
            }
          },
          "InputCancel": {
            "type": "object",
            "additionalProperties": false,
            "properties": {
              "t": {
                "anyOf": [
                  {
                    "$ref": "#/components/schemas/Time"
                  },
                  {
                    "type": "null"
                  }
                ]
              },
              "pointer": {
                "description": "The pointer id: a string of at most 64 characters or an integer.",
                "anyOf": [
                  {
                    "type": "string",
                    "maxLength": 64
                  },
                  {
                    "type": "integer"
                  },
                  {
                    "type": "null"
                  }
                ]
              }
            }
          },
          "InputPress": {
            "type": "object",
            "additionalProperties": false,
            "properties": {
              "t": {
                "anyOf": [
                  {
                    "$ref": "#/components/schemas/Time"
                  },
                  {
                    "type": "null"
                  }
                ]
              },
              "pointer": {
                "description": "The pointer id: a string of at most 64 characters or an integer.",
                "anyOf": [
                  {
                    "type": "string",
                    "maxLength": 64
                  },
                  {
                    "type": "integer"
                  },
                  {
                    "type": "null"
                  }
                ]
              },
              "holdMs": {
                "type": [
                  "integer",
                  "null"
                ],
                "minimum": 0,
                "maximum": 3600000
              }
            }
          },
          "InputState": {
            "type": "object",
            "required": [
              "face"
            ],
            "additionalProperties": false,
            "properties": {
              "face": {
                "type": "integer",
                "enum": [
                  0,
                  1
                ]
              }
            }
          },
          "BatchInput": {
            "description": "One input of a batch; the members allowed depend on `type`.",
            "oneOf": [
              {
                "type": "object",
                "required": [
                  "button",
                  "type"
                ],
                "additionalProperties": false,
                "properties": {
                  "button": {
                    "$ref": "#/components/schemas/Name"
                  },
                  "type": {
                    "type": "string",
                    "const": "down"
                  },
                  "t": {
                    "anyOf": [
                      {
                        "$ref": "#/components/schemas/Time"
                      },
                      {
                        "type": "null"
                      }
                    ]
                  },
                  "pointer": {
                    "description": "The pointer id: a string of at most 64 characters or an integer.",
                    "anyOf": [
                      {
                        "type": "string",
                        "maxLength": 64
                      },
                      {
                        "type": "integer"
                      },
                      {
                        "type": "null"
                      }
                    ]
                  }
                }
              },
              {
                "type": "object",
                "required": [
                  "button",
                  "type",
                  "inside"
                ],
                "additionalProperties": false,
                "properties": {
                  "button": {
                    "$ref": "#/components/schemas/Name"
                  },
                  "type": {
                    "type": "string",
                    "const": "move"
                  },
                  "t": {
                    "anyOf": [
                      {
                        "$ref": "#/components/schemas/Time"
                      },
                      {
                        "type": "null"
                      }
                    ]
                  },
                  "inside": {
                    "type": "boolean"
                  },
                  "pointer": {
                    "description": "The pointer id: a string of at most 64 characters or an integer.",
                    "anyOf": [
                      {
                        "type": "string",
                        "maxLength": 64
                      },
                      {
                        "type": "integer"
                      },
                      {
                        "type": "null"
                      }
                    ]
                  }
                }
              },
              {
                "type": "object",
                "required": [
                  "button",
                  "type"
                ],
                "additionalProperties": false,
                "properties": {
                  "button": {
                    "$ref": "#/components/schemas/Name"
                  },
                  "type": {
                    "type": "string",
                    "const": "up"
                  },
                  "t": {
                    "anyOf": [
                      {
                        "$ref": "#/components/schemas/Time"
                      },
                      {
                        "type": "null"
                      }
                    ]
                  },
                  "inside": {
                    "type": [
                      "boolean",
                      "null"
                    ]
                  },
                  "pointer": {
                    "description": "The pointer id: a string of at most 64 characters or an integer.",
                    "anyOf": [
                      {
                        "type": "string",
                        "maxLength": 64
                      },
                      {
                        "type": "integer"
                      },
                      {
                        "type": "null"
                      }
                    ]
                  }
                }
              },
              {
                "type": "object",
                "required": [
                  "button",
                  "type"
                ],
                "additionalProperties": false,
                "properties": {
                  "button": {
                    "$ref": "#/components/schemas/Name"
                  },
                  "type": {
                    "type": "string",
                    "const": "cancel"
                  },
                  "t": {
                    "anyOf": [
                      {
                        "$ref": "#/components/schemas/Time"
                      },
                      {
                        "type": "null"
                      }
                    ]
                  },
                  "pointer": {
                    "description": "The pointer id: a string of at most 64 characters or an integer.",
                    "anyOf": [
                      {
                        "type": "string",
                        "maxLength": 64
                      },
                      {
                        "type": "integer"
                      },
                      {
                        "type": "null"
                      }
                    ]
                  }
                }
              }
            ]
          },
          "InputBatch": {
            "type": "array",
            "maxItems": 1000,
            "items": {
              "$ref": "#/components/schemas/BatchInput"
            },
            "description": "Applied in order, all or nothing; an error names the input's `index`."
          },
          "ButtonHandlerCreate": {
            "type": "object",
            "required": [
              "on"
            ],
            "additionalProperties": false,
            "description": "Exactly one of `webhook` and `script`.",
            "properties": {
              "on": {
                "type": "array",
                "minItems": 1,
                "maxItems": 19,
                "items": {
                  "type": "string",
                  "enum": [
                    "touch-down",
                    "touch-drag-exit",
                    "touch-drag-enter",
                    "touch-up-inside",
                    "touch-up-outside",
                    "touch-cancel",
                    "long-press",
                    "long-press-end",
                    "repeat",
                    "tap",
                    "toggle",
                    "single-tap",
                    "double-tap",
                    "triple-tap",
                    "quadruple-tap",
                    "quintuple-tap"
                  ]
                }
              },
              "option": {
                "type": "null",
                "description": "Only sheet handlers take an option."
              },
              "enabled": {
                "type": [
                  "boolean",
                  "null"
                ]
              },
              "webhook": {
                "type": "object",
                "required": [
                  "url"
                ],
                "additionalProperties": false,
                "properties": {
                  "url": {
                    "type": "string",
                    "maxLength": 2048,
                    "pattern": "^[Hh][Tt][Tt][Pp][Ss]?://[^\\s/?#@]+([/?#]\\S*)?$",
                    "description": "An absolute http or https URL, at most 2048 characters, without user or password."
                  },
                  "headers": {
                    "type": [
                      "object",
                      "null"
                    ],
                    "maxProperties": 32,
                    "description": "Extra request headers. Names are HTTP tokens other than host, content-length, transfer-encoding, connection and webhook-*; values have no CR, LF or NUL (422 otherwise). A null value is skipped.",
                    "propertyNames": {
                      "pattern": "^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}$",
                      "not": {
                        "pattern": "^([Hh][Oo][Ss][Tt]|[Cc][Oo][Nn][Tt][Ee][Nn][Tt]-[Ll][Ee][Nn][Gg][Tt][Hh]|[Tt][Rr][Aa][Nn][Ss][Ff][Ee][Rr]-[Ee][Nn][Cc][Oo][Dd][Ii][Nn][Gg]|[Cc][Oo][Nn][Nn][Ee][Cc][Tt][Ii][Oo][Nn]|[Ww][Ee][Bb][Hh][Oo][Oo][Kk]-.*)$"
                      }
                    },
                    "additionalProperties": {
                      "type": [
                        "string",
                        "null"
                      ],
                      "maxLength": 4096,
                      "pattern": "^[^\\r\\n\\u0000]*$"
                    }
                  },
                  "timeoutMs": {
                    "type": [
                      "integer",
                      "null"
                    ],
                    "minimum": 1000,
                    "maximum": 30000
                  },
                  "maxAttempts": {
                    "type": [
                      "integer",
                      "null"
                    ],
                    "minimum": 1,
                    "maximum": 20
                  },
                  "expireAfterMs": {
                    "type": [
                      "integer",
                      "null"
                    ],
                    "minimum": 1000,
                    "maximum": 604800000
                  },
                  "method": {
                    "type": "string",
                    "enum": [
                      "POST",
                      "PUT",
                      "PATCH",
                      "GET",
                      "DELETE"
                    ],
                    "description": "Default POST; a GET sends no body."
                  },
                  "body": {
                    "description": "A JSON template sent instead of the event: string values may hold {button}, {type}, {seq}, {t}, {face}, {option}, {label}, {id}; a string that is exactly \"{event}\" becomes the event object. At most 16 KiB, 16 levels."
                  }
                }
              },
              "script": {
                "type": "object",
                "required": [
                  "name"
                ],
                "additionalProperties": false,
                "description": "Refused (422) unless buttond was started with --scripts-dir.",
                "properties": {
                  "name": {
                    "type": "string",
                    "maxLength": 128,
                    "pattern": "^[A-Za-z0-9_-][A-Za-z0-9._-]*$",
                    "description": "A regular executable file directly in --scripts-dir."
                  },
                  "args": {
                    "type": [
                      "array",
                      "null"
                    ],
                    "items": {
                      "type": "string",
                      "maxLength": 1024,
                      "pattern": "^[^\\u0000]*$"
                    },
                    "description": "Arguments; an argument may be exactly one of {button}, {type}, {seq}, {t}, {face}, {option}.",
                    "maxItems": 32
                  },
                  "timeoutMs": {
                    "type": [
                      "integer",
                      "null"
                    ],
                    "minimum": 1000,
                    "maximum": 300000
                  },
                  "maxAttempts": {
                    "type": [
                      "integer",
                      "null"
                    ],
                    "minimum": 1,
                    "maximum": 20
                  },
                  "expireAfterMs": {
                    "type": [
                      "integer",
                      "null"
                    ],
                    "minimum": 1000,
                    "maximum": 604800000
                  }
                }
              },
              "ordered": {
                "type": "boolean",
                "description": "Default true. With false, a delivery waiting for its retry does not hold back later ones."
              }
            },
            "oneOf": [
              {
                "required": [
                  "webhook"
                ],
                "properties": {
                  "script": {
                    "type": "null"
                  }
                }
              },
              {
                "required": [
                  "script"
                ],
                "properties": {
                  "webhook": {
                    "type": "null"
                  }
                }
              }
            ]
          },
          "SheetHandlerCreate": {
            "type": "object",
            "required": [
              "on"
            ],
            "additionalProperties": false,
            "description": "Exactly one of `webhook` and `script`.",
            "properties": {
              "on": {
                "type": "array",
                "minItems": 1,
                "maxItems": 19,
                "items": {
                  "type": "string",
                  "enum": [
                    "sheet-open",
                    "select",
                    "sheet-cancel"
                  ]
                }
              },
              "option": {
                "anyOf": [
                  {
                    "$ref": "#/components/schemas/Name"
                  },
                  {
                    "type": "null"
                  }
                ],
                "description": "Fire only on `select` of this option (one of the sheet's)."
              },
              "enabled": {
                "type": [
                  "boolean",
                  "null"
                ]
              },
              "webhook": {
                "type": "object",
                "required": [
                  "url"
                ],
                "additionalProperties": false,
                "properties": {
                  "url": {
                    "type": "string",
                    "maxLength": 2048,
                    "pattern": "^[Hh][Tt][Tt][Pp][Ss]?://[^\\s/?#@]+([/?#]\\S*)?$",
                    "description": "An absolute http or https URL, at most 2048 characters, without user or password."
                  },
                  "headers": {
                    "type": [
                      "object",
                      "null"
                    ],
                    "maxProperties": 32,
                    "description": "Extra request headers. Names are HTTP tokens other than host, content-length, transfer-encoding, connection and webhook-*; values have no CR, LF or NUL (422 otherwise). A null value is skipped.",
                    "propertyNames": {
                      "pattern": "^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}$",
                      "not": {
                        "pattern": "^([Hh][Oo][Ss][Tt]|[Cc][Oo][Nn][Tt][Ee][Nn][Tt]-[Ll][Ee][Nn][Gg][Tt][Hh]|[Tt][Rr][Aa][Nn][Ss][Ff][Ee][Rr]-[Ee][Nn][Cc][Oo][Dd][Ii][Nn][Gg]|[Cc][Oo][Nn][Nn][Ee][Cc][Tt][Ii][Oo][Nn]|[Ww][Ee][Bb][Hh][Oo][Oo][Kk]-.*)$"
                      }
                    },
                    "additionalProperties": {
                      "type": [
                        "string",
                        "null"
                      ],
                      "maxLength": 4096,
                      "pattern": "^[^\\r\\n\\u0000]*$"
                    }
                  },
                  "timeoutMs": {
                    "type": [
                      "integer",
                      "null"
                    ],
                    "minimum": 1000,
                    "maximum": 30000
                  },
                  "maxAttempts": {
                    "type": [
                      "integer",
                      "null"
                    ],
                    "minimum": 1,
                    "maximum": 20
                  },
                  "expireAfterMs": {
                    "type": [
                      "integer",
                      "null"
                    ],
                    "minimum": 1000,
                    "maximum": 604800000
                  },
                  "method": {
                    "type": "string",
                    "enum": [
                      "POST",
                      "PUT",
                      "PATCH",
                      "GET",
                      "DELETE"
                    ],
                    "description": "Default POST; a GET sends no body."
                  },
                  "body": {
                    "description": "A JSON template sent instead of the event: string values may hold {button}, {type}, {seq}, {t}, {face}, {option}, {label}, {id}; a string that is exactly \"{event}\" becomes the event object. At most 16 KiB, 16 levels."
                  }
                }
              },
              "script": {
                "type": "object",
                "required": [
                  "name"
                ],
                "additionalProperties": false,
                "description": "Refused (422) unless buttond was started with --scripts-dir.",
                "properties": {
                  "name": {
                    "type": "string",
                    "maxLength": 128,
                    "pattern": "^[A-Za-z0-9_-][A-Za-z0-9._-]*$",
                    "description": "A regular executable file directly in --scripts-dir."
                  },
                  "args": {
                    "type": [
                      "array",
                      "null"
                    ],
                    "items": {
                      "type": "string",
                      "maxLength": 1024,
                      "pattern": "^[^\\u0000]*$"
                    },
                    "description": "Arguments; an argument may be exactly one of {button}, {type}, {seq}, {t}, {face}, {option}.",
                    "maxItems": 32
                  },
                  "timeoutMs": {
                    "type": [
                      "integer",
                      "null"
                    ],
                    "minimum": 1000,
                    "maximum": 300000
                  },
                  "maxAttempts": {
                    "type": [
                      "integer",
                      "null"
                    ],
                    "minimum": 1,
                    "maximum": 20
                  },
                  "expireAfterMs": {
                    "type": [
                      "integer",
                      "null"
                    ],
                    "minimum": 1000,
                    "maximum": 604800000
                  }
                }
              },
              "ordered": {
                "type": "boolean",
                "description": "Default true. With false, a delivery waiting for its retry does not hold back later ones."
              }
            },
            "oneOf": [
              {
                "required": [
                  "webhook"
                ],
                "properties": {
                  "script": {
                    "type": "null"
                  }
                }
              },
              {
                "required": [
                  "script"
                ],
                "properties": {
                  "webhook": {
                    "type": "null"
                  }
                }
              }
            ]
          },
          "HandlerPatch": {
            "type": "object",
            "additionalProperties": false,
            "description": "Changes only the members given. `webhook` only on a webhook handler, `script` only on a script handler (422 otherwise); `on` events must suit the owner.",
            "properties": {
              "id": {
                "description": "Read-only, ignored."
              },
              "button": {
                "description": "Read-only, ignored."
              },
              "sheet": {
                "description": "Read-only, ignored."
              },
              "on": {
                "type": [
                  "array",
                  "null"
                ],
                "minItems": 1,
                "maxItems": 19,
                "items": {
                  "$ref": "#/components/schemas/EventType"
                }
              },
              "option": {
                "anyOf": [
                  {
                    "$ref": "#/components/schemas/Name"
                  },
                  {
                    "type": "null"
                  }
                ],
                "description": "Sheet handlers only."
              },
              "enabled": {
                "type": [
                  "boolean",
                  "null"
                ]
              },
              "webhook": {
                "type": [
                  "object",
                  "null"
                ],
                "additionalProperties": false,
                "properties": {
                  "url": {
                    "type": "string",
                    "maxLength": 2048,
                    "pattern": "^[Hh][Tt][Tt][Pp][Ss]?://[^\\s/?#@]+([/?#]\\S*)?$",
                    "description": "An absolute http or https URL, at most 2048 characters, without user or password."
                  },
                  "headers": {
                    "type": [
                      "object",
                      "null"
                    ],
                    "maxProperties": 32,
                    "description": "Extra request headers. Names are HTTP tokens other than host, content-length, transfer-encoding, connection and webhook-*; values have no CR, LF or NUL (422 otherwise). A null value is skipped.",
                    "propertyNames": {
                      "pattern": "^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}$",
                      "not": {
                        "pattern": "^([Hh][Oo][Ss][Tt]|[Cc][Oo][Nn][Tt][Ee][Nn][Tt]-[Ll][Ee][Nn][Gg][Tt][Hh]|[Tt][Rr][Aa][Nn][Ss][Ff][Ee][Rr]-[Ee][Nn][Cc][Oo][Dd][Ii][Nn][Gg]|[Cc][Oo][Nn][Nn][Ee][Cc][Tt][Ii][Oo][Nn]|[Ww][Ee][Bb][Hh][Oo][Oo][Kk]-.*)$"
                      }
                    },
                    "additionalProperties": {
                      "type": [
                        "string",
                        "null"
                      ],
                      "maxLength": 4096,
                      "pattern": "^[^\\r\\n\\u0000]*$"
                    }
                  },
                  "timeoutMs": {
                    "type": [
                      "integer",
                      "null"
                    ],
                    "minimum": 1000,
                    "maximum": 30000
                  },
                  "maxAttempts": {
                    "type": [
                      "integer",
                      "null"
                    ],
                    "minimum": 1,
                    "maximum": 20
                  },
                  "expireAfterMs": {
                    "type": [
                      "integer",
                      "null"
                    ],
                    "minimum": 1000,
                    "maximum": 604800000
                  },
                  "method": {
                    "type": "string",
                    "enum": [
                      "POST",
                      "PUT",
                      "PATCH",
                      "GET",
                      "DELETE"
                    ],
                    "description": "Default POST; a GET sends no body."
                  },
                  "body": {
                    "description": "A JSON template sent instead of the event: string values may hold {button}, {type}, {seq}, {t}, {face}, {option}, {label}, {id}; a string that is exactly \"{event}\" becomes the event object. At most 16 KiB, 16 levels."
                  }
                }
              },
              "script": {
                "type": [
                  "object",
                  "null"
                ],
                "additionalProperties": false,
                "properties": {
                  "name": {
                    "type": "string",
                    "maxLength": 128,
                    "pattern": "^[A-Za-z0-9_-][A-Za-z0-9._-]*$",
                    "description": "A regular executable file directly in --scripts-dir."
                  },
                  "args": {
                    "type": [
                      "array",
                      "null"
                    ],
                    "items": {
                      "type": "string",
                      "maxLength": 1024,
                      "pattern": "^[^\\u0000]*$"
                    },
                    "description": "Arguments; an argument may be exactly one of {button}, {type}, {seq}, {t}, {face}, {option}."
                  },
                  "timeoutMs": {
                    "type": [
                      "integer",
                      "null"
                    ],
                    "minimum": 1000,
                    "maximum": 300000
                  },
                  "maxAttempts": {
                    "type": [
                      "integer",
                      "null"
                    ],
                    "minimum": 1,
                    "maximum": 20
                  },
                  "expireAfterMs": {
                    "type": [
                      "integer",
                      "null"
                    ],
                    "minimum": 1000,
                    "maximum": 604800000
                  }
                }
              },
              "ordered": {
                "type": "boolean",
                "description": "Default true. With false, a delivery waiting for its retry does not hold back later ones."
              }
            }
          },
          "Handler": {
            "type": "object",
            "required": [
              "id",
              "on",
              "enabled"
            ],
            "additionalProperties": false,
            "description": "`button` or `sheet` names the owner; `webhook` or `script` says what runs. Secrets are never shown.",
            "properties": {
              "id": {
                "type": "string",
                "pattern": "^hdl_"
              },
              "on": {
                "type": "array",
                "items": {
                  "$ref": "#/components/schemas/EventType"
                }
              },
              "enabled": {
                "type": "boolean"
              },
              "button": {
                "$ref": "#/components/schemas/Name"
              },
              "sheet": {
                "$ref": "#/components/schemas/Name"
              },
              "option": {
                "$ref": "#/components/schemas/Name"
              },
              "webhook": {
                "type": "object",
                "required": [
                  "url",
                  "headers",
                  "timeoutMs",
                  "maxAttempts"
                ],
                "additionalProperties": false,
                "properties": {
                  "url": {
                    "type": "string"
                  },
                  "headers": {
                    "type": "object",
                    "additionalProperties": {
                      "type": "string"
                    }
                  },
                  "timeoutMs": {
                    "type": "integer"
                  },
                  "maxAttempts": {
                    "type": "integer"
                  },
                  "expireAfterMs": {
                    "type": "integer"
                  },
                  "method": {
                    "type": "string",
                    "enum": [
                      "POST",
                      "PUT",
                      "PATCH",
                      "GET",
                      "DELETE"
                    ],
                    "description": "Default POST; a GET sends no body."
                  },
                  "body": {
                    "description": "A JSON template sent instead of the event: string values may hold {button}, {type}, {seq}, {t}, {face}, {option}, {label}, {id}; a string that is exactly \"{event}\" becomes the event object. At most 16 KiB, 16 levels."
                  }
                }
              },
              "script": {
                "type": "object",
                "required": [
                  "name",
                  "args",
                  "timeoutMs",
                  "maxAttempts"
                ],
                "additionalProperties": false,
                "properties": {
                  "name": {
                    "type": "string"
                  },
                  "args": {
                    "type": "array",
                    "items": {
                      "type": "string"
                    }
                  },
                  "timeoutMs": {
                    "type": "integer"
                  },
                  "maxAttempts": {
                    "type": "integer"
                  },
                  "expireAfterMs": {
                    "type": "integer"
                  }
                }
              },
              "ordered": {
                "type": "boolean",
                "description": "Default true. With false, a delivery waiting for its retry does not hold back later ones."
              },
              "health": {
                "$ref": "#/components/schemas/Health"
              }
            },
            "allOf": [
              {
                "oneOf": [
                  {
                    "required": [
                      "button"
                    ]
                  },
                  {
                    "required": [
                      "sheet"
                    ]
                  }
                ]
              },
              {
                "oneOf": [
                  {
                    "required": [
                      "webhook"
                    ]
                  },
                  {
                    "required": [
                      "script"
                    ]
                  }
                ]
              }
            ]
          },
          "HandlerCreated": {
            "type": "object",
            "required": [
              "id",
              "on",
              "enabled"
            ],
            "additionalProperties": false,
            "description": "The new handler; a webhook handler also carries its `secret`, shown this once.",
            "properties": {
              "id": {
                "type": "string",
                "pattern": "^hdl_"
              },
              "on": {
                "type": "array",
                "items": {
                  "$ref": "#/components/schemas/EventType"
                }
              },
              "enabled": {
                "type": "boolean"
              },
              "button": {
                "$ref": "#/components/schemas/Name"
              },
              "sheet": {
                "$ref": "#/components/schemas/Name"
              },
              "option": {
                "$ref": "#/components/schemas/Name"
              },
              "webhook": {
                "type": "object",
                "required": [
                  "url",
                  "headers",
                  "timeoutMs",
                  "maxAttempts"
                ],
                "additionalProperties": false,
                "properties": {
                  "url": {
                    "type": "string"
                  },
                  "headers": {
                    "type": "object",
                    "additionalProperties": {
                      "type": "string"
                    }
                  },
                  "timeoutMs": {
                    "type": "integer"
                  },
                  "maxAttempts": {
                    "type": "integer"
                  },
                  "expireAfterMs": {
                    "type": "integer"
                  },
                  "method": {
                    "type": "string",
                    "enum": [
                      "POST",
                      "PUT",
                      "PATCH",
                      "GET",
                      "DELETE"
                    ],
                    "description": "Default POST; a GET sends no body."
                  },
                  "body": {
                    "description": "A JSON template sent instead of the event: string values may hold {button}, {type}, {seq}, {t}, {face}, {option}, {label}, {id}; a string that is exactly \"{event}\" becomes the event object. At most 16 KiB, 16 levels."
                  }
                }
              },
              "script": {
                "type": "object",
                "required": [
                  "name",
                  "args",
                  "timeoutMs",
                  "maxAttempts"
                ],
                "additionalProperties": false,
                "properties": {
                  "name": {
                    "type": "string"
                  },
                  "args": {
                    "type": "array",
                    "items": {
                      "type": "string"
                    }
                  },
                  "timeoutMs": {
                    "type": "integer"
                  },
                  "maxAttempts": {
                    "type": "integer"
                  },
                  "expireAfterMs": {
                    "type": "integer"
                  }
                }
              },
              "secret": {
                "type": "string",
                "pattern": "^whsec_"
              },
              "ordered": {
                "type": "boolean",
                "description": "Default true. With false, a delivery waiting for its retry does not hold back later ones."
              },
              "health": {
                "$ref": "#/components/schemas/Health"
              }
            },
            "allOf": [
              {
                "oneOf": [
                  {
                    "required": [
                      "button"
                    ]
                  },
                  {
                    "required": [
                      "sheet"
                    ]
                  }
                ]
              },
              {
                "oneOf": [
                  {
                    "required": [
                      "webhook"
                    ]
                  },
                  {
                    "required": [
                      "script"
                    ]
                  }
                ]
              }
            ]
          },
          "HandlerList": {
            "type": "object",
            "required": [
              "handlers"
            ],
            "additionalProperties": false,
            "properties": {
              "handlers": {
                "type": "array",
                "items": {
                  "$ref": "#/components/schemas/Handler"
                }
              }
            }
          },
          "Secret": {
            "type": "object",
            "required": [
              "id",
              "secret"
            ],
            "additionalProperties": false,
            "properties": {
              "id": {
                "type": "string"
              },
              "secret": {
                "type": "string",
                "pattern": "^whsec_"
              }
            }
          },
          "Delivery": {
            "type": "object",
            "required": [
              "id",
              "handler",
              "eventSeq",
              "status",
              "attempts",
              "nextAttemptAt",
              "createdAt"
            ],
            "additionalProperties": false,
            "properties": {
              "id": {
                "type": "string",
                "pattern": "^dlv_"
              },
              "handler": {
                "type": "string"
              },
              "eventSeq": {
                "type": "integer"
              },
              "status": {
                "type": "string",
                "enum": [
                  "pending",
                  "in_flight",
                  "ok",
                  "failed",
                  "expired",
                  "blocked"
                ]
              },
              "nextAttemptAt": {
                "type": "integer"
              },
              "createdAt": {
                "type": "integer"
              },
              "attempts": {
                "type": "integer",
                "minimum": 0,
                "description": "Attempts made so far."
              },
              "eventId": {
                "type": "string"
              },
              "type": {
                "type": "string",
                "description": "The event type."
              },
              "button": {
                "type": "string"
              },
              "sheet": {
                "type": "string"
              },
              "waitingFor": {
                "type": "string",
                "pattern": "^dlv_",
                "description": "Pending behind this earlier delivery of the same ordered handler, which waits for its retry."
              },
              "outcome": {
                "type": "string",
                "description": "How the last attempt ended."
              },
              "target": {
                "type": "string",
                "description": "Where it goes: `POST http://host/path`, `script name`, `mqtt`."
              },
              "statusCode": {
                "type": "integer",
                "description": "The receiver's answer to the last attempt."
              },
              "exitCode": {
                "type": "integer",
                "description": "The script's exit code (or signal) in the last attempt."
              }
            }
          },
          "Attempt": {
            "type": "object",
            "required": [
              "number",
              "startedAt",
              "durationMs",
              "outcome",
              "output"
            ],
            "additionalProperties": false,
            "properties": {
              "number": {
                "type": "integer",
                "minimum": 1
              },
              "startedAt": {
                "type": "integer"
              },
              "durationMs": {
                "type": "integer"
              },
              "outcome": {
                "type": "string",
                "examples": [
                  "ok",
                  "http_status",
                  "timeout",
                  "connect",
                  "exit_code",
                  "signal",
                  "expired",
                  "refused",
                  "blocked"
                ]
              },
              "output": {
                "type": "string",
                "description": "The first 4 KiB of the response or output."
              },
              "statusCode": {
                "type": "integer"
              },
              "exitCode": {
                "type": "integer"
              }
            }
          },
          "DeliveryDetail": {
            "type": "object",
            "required": [
              "id",
              "handler",
              "eventSeq",
              "status",
              "attempts",
              "nextAttemptAt",
              "createdAt",
              "event"
            ],
            "additionalProperties": false,
            "properties": {
              "id": {
                "type": "string",
                "pattern": "^dlv_"
              },
              "handler": {
                "type": "string"
              },
              "eventSeq": {
                "type": "integer"
              },
              "status": {
                "type": "string",
                "enum": [
                  "pending",
                  "in_flight",
                  "ok",
                  "failed",
                  "expired",
                  "blocked"
                ]
              },
              "nextAttemptAt": {
                "type": "integer"
              },
              "createdAt": {
                "type": "integer"
              },
              "attempts": {
                "type": "array",
                "items": {
                  "$ref": "#/components/schemas/Attempt"
                }
              },
              "event": {
                "anyOf": [
                  {
                    "$ref": "#/components/schemas/Event"
                  },
                  {
                    "type": "null"
                  }
                ]
              },
              "eventId": {
                "type": "string"
              },
              "type": {
                "type": "string",
                "description": "The event type."
              },
              "button": {
                "type": "string"
              },
              "sheet": {
                "type": "string"
              },
              "waitingFor": {
                "type": "string",
                "pattern": "^dlv_",
                "description": "Pending behind this earlier delivery of the same ordered handler, which waits for its retry."
              },
              "body": {
                "description": "The body a template shaped (sent instead of the event), when the handler has one."
              },
              "outcome": {
                "type": "string",
                "description": "How the last attempt ended."
              },
              "target": {
                "type": "string",
                "description": "Where it goes: `POST http://host/path`, `script name`, `mqtt`."
              },
              "statusCode": {
                "type": "integer",
                "description": "The receiver's answer to the last attempt."
              },
              "exitCode": {
                "type": "integer",
                "description": "The script's exit code (or signal) in the last attempt."
              }
            }
          },
          "DeliveryList": {
            "type": "object",
            "required": [
              "deliveries"
            ],
            "additionalProperties": false,
            "properties": {
              "deliveries": {
                "type": "array",
                "items": {
                  "$ref": "#/components/schemas/Delivery"
                }
              },
              "next": {
                "type": "string",
                "pattern": "^dlv_",
                "description": "When the page is full: pass as `before` for the next (older) page."
              }
            }
          },
          "ButtonDefinition": {
            "type": "object",
            "description": "A button's definition, without live state (the config export form).",
            "required": [
              "id",
              "label",
              "kind",
              "longPressMs",
              "multiTapMs",
              "maxTaps",
              "repeatMs",
              "maxHoldMs"
            ],
            "additionalProperties": false,
            "properties": {
              "id": {
                "$ref": "#/components/schemas/Name"
              },
              "label": {
                "type": "string",
                "maxLength": 64
              },
              "kind": {
                "type": "string",
                "enum": [
                  "push",
                  "toggle"
                ]
              },
              "longPressMs": {
                "type": "integer",
                "minimum": 50,
                "maximum": 60000
              },
              "multiTapMs": {
                "type": "integer",
                "minimum": 50,
                "maximum": 5000
              },
              "maxTaps": {
                "type": "integer",
                "minimum": 1,
                "maximum": 5
              },
              "repeatMs": {
                "type": "integer",
                "minimum": 0,
                "maximum": 60000
              },
              "maxHoldMs": {
                "type": "integer",
                "minimum": 1000,
                "maximum": 3600000
              },
              "faces": {
                "type": "array",
                "minItems": 2,
                "maxItems": 2,
                "items": {
                  "$ref": "#/components/schemas/Face"
                }
              },
              "flip": {
                "$ref": "#/components/schemas/Flip"
              },
              "order": {
                "type": "integer",
                "minimum": -1000000000,
                "maximum": 1000000000
              },
              "group": {
                "type": "string",
                "maxLength": 64
              },
              "color": {
                "type": [
                  "string",
                  "null"
                ],
                "pattern": "^#[0-9a-fA-F]{6}$",
                "description": "The key's colour; a toggle's faces keep their own. null clears it."
              },
              "size": {
                "type": "string",
                "enum": [
                  "1x1",
                  "2x1",
                  "1x2",
                  "2x2"
                ],
                "description": "Grid cells the key takes (default 1x1)."
              },
              "status": {
                "type": [
                  "string",
                  "null"
                ],
                "maxLength": 32,
                "description": "A live line shown on the key (\"ON AIR\", \"21.5 °C\"); null clears it."
              },
              "icon": {
                "type": [
                  "string",
                  "null"
                ],
                "pattern": "^[a-z0-9-]{1,32}$",
                "description": "A name from GET /api/v1/icons; null clears it."
              }
            }
          },
          "SheetDefinition": {
            "type": "object",
            "required": [
              "id",
              "title",
              "cancelLabel",
              "options"
            ],
            "additionalProperties": false,
            "properties": {
              "id": {
                "$ref": "#/components/schemas/Name"
              },
              "title": {
                "type": "string",
                "maxLength": 128
              },
              "cancelLabel": {
                "type": "string",
                "maxLength": 64
              },
              "options": {
                "type": "array",
                "minItems": 1,
                "maxItems": 32,
                "items": {
                  "$ref": "#/components/schemas/SheetOption"
                }
              }
            },
            "description": "A sheet's definition, without live state (the config export form)."
          },
          "Config": {
            "type": "object",
            "required": [
              "buttons",
              "sheets",
              "handlers"
            ],
            "additionalProperties": false,
            "description": "The whole registry; webhook secrets are left out.",
            "properties": {
              "buttons": {
                "type": "array",
                "items": {
                  "$ref": "#/components/schemas/ButtonDefinition"
                }
              },
              "sheets": {
                "type": "array",
                "items": {
                  "$ref": "#/components/schemas/SheetDefinition"
                }
              },
              "handlers": {
                "type": "array",
                "items": {
                  "$ref": "#/components/schemas/Handler"
                }
              }
            }
          },
          "ConfigImported": {
            "type": "object",
            "required": [
              "buttons",
              "sheets",
              "handlers",
              "secrets"
            ],
            "additionalProperties": false,
            "description": "The registry as imported, and the secrets of the webhook handlers that are new (by handler id), shown this once.",
            "properties": {
              "buttons": {
                "type": "array",
                "items": {
                  "$ref": "#/components/schemas/ButtonDefinition"
                }
              },
              "sheets": {
                "type": "array",
                "items": {
                  "$ref": "#/components/schemas/SheetDefinition"
                }
              },
              "handlers": {
                "type": "array",
                "items": {
                  "$ref": "#/components/schemas/Handler"
                }
              },
              "secrets": {
                "type": "object",
                "additionalProperties": {
                  "type": "string",
                  "pattern": "^whsec_"
                }
              }
            }
          },
          "ConfigImport": {
            "type": "object",
            "additionalProperties": false,
            "description": "Replaces every button, sheet and handler (buttons that stay keep their live state). Ids must be unique; a handler's owner must be in the same config. `buttons` is required (an empty list removes every button), and the registry limits hold.",
            "required": [
              "buttons"
            ],
            "properties": {
              "buttons": {
                "type": "array",
                "items": {
                  "$ref": "#/components/schemas/ButtonCreate"
                }
              },
              "sheets": {
                "type": [
                  "array",
                  "null"
                ],
                "items": {
                  "$ref": "#/components/schemas/SheetCreate"
                }
              },
              "handlers": {
                "type": [
                  "array",
                  "null"
                ],
                "items": {
                  "type": "object",
                  "required": [
                    "on"
                  ],
                  "additionalProperties": false,
                  "description": "A handler as exported: `button` or `sheet` names its owner in this config; `id` (hdl_ + a name) keeps a handler, and its secret, across imports. Exactly one of `webhook` and `script`.",
                  "properties": {
                    "on": {
                      "type": "array",
                      "minItems": 1,
                      "maxItems": 19,
                      "items": {
                        "$ref": "#/components/schemas/EventType"
                      }
                    },
                    "option": {
                      "anyOf": [
                        {
                          "$ref": "#/components/schemas/Name"
                        },
                        {
                          "type": "null"
                        }
                      ],
                      "description": "Sheet handlers only."
                    },
                    "enabled": {
                      "type": [
                        "boolean",
                        "null"
                      ]
                    },
                    "webhook": {
                      "type": "object",
                      "required": [
                        "url"
                      ],
                      "additionalProperties": false,
                      "properties": {
                        "url": {
                          "type": "string",
                          "maxLength": 2048,
                          "pattern": "^[Hh][Tt][Tt][Pp][Ss]?://[^\\s/?#@]+([/?#]\\S*)?$",
                          "description": "An absolute http or https URL, at most 2048 characters, without user or password."
                        },
                        "headers": {
                          "type": [
                            "object",
                            "null"
                          ],
                          "maxProperties": 32,
                          "description": "Extra request headers. Names are HTTP tokens other than host, content-length, transfer-encoding, connection and webhook-*; values have no CR, LF or NUL (422 otherwise). A null value is skipped.",
                          "propertyNames": {
                            "pattern": "^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}$",
                            "not": {
                              "pattern": "^([Hh][Oo][Ss][Tt]|[Cc][Oo][Nn][Tt][Ee][Nn][Tt]-[Ll][Ee][Nn][Gg][Tt][Hh]|[Tt][Rr][Aa][Nn][Ss][Ff][Ee][Rr]-[Ee][Nn][Cc][Oo][Dd][Ii][Nn][Gg]|[Cc][Oo][Nn][Nn][Ee][Cc][Tt][Ii][Oo][Nn]|[Ww][Ee][Bb][Hh][Oo][Oo][Kk]-.*)$"
                            }
                          },
                          "additionalProperties": {
                            "type": [
                              "string",
                              "null"
                            ],
                            "maxLength": 4096,
                            "pattern": "^[^\\r\\n\\u0000]*$"
                          }
                        },
                        "timeoutMs": {
                          "type": [
                            "integer",
                            "null"
                          ],
                          "minimum": 1000,
                          "maximum": 30000
                        },
                        "maxAttempts": {
                          "type": [
                            "integer",
                            "null"
                          ],
                          "minimum": 1,
                          "maximum": 20
                        },
                        "expireAfterMs": {
                          "type": [
                            "integer",
                            "null"
                          ],
                          "minimum": 1000,
                          "maximum": 604800000
                        },
                        "method": {
                          "type": "string",
                          "enum": [
                            "POST",
                            "PUT",
                            "PATCH",
                            "GET",
                            "DELETE"
                          ],
                          "description": "Default POST; a GET sends no body."
                        },
                        "body": {
                          "description": "A JSON template sent instead of the event: string values may hold {button}, {type}, {seq}, {t}, {face}, {option}, {label}, {id}; a string that is exactly \"{event}\" becomes the event object. At most 16 KiB, 16 levels."
                        }
                      }
                    },
                    "script": {
                      "type": "object",
                      "required": [
                        "name"
                      ],
                      "additionalProperties": false,
                      "description": "Refused (422) unless buttond was started with --scripts-dir.",
                      "properties": {
                        "name": {
                          "type": "string",
                          "maxLength": 128,
                          "pattern": "^[A-Za-z0-9_-][A-Za-z0-9._-]*$",
                          "description": "A regular executable file directly in --scripts-dir."
                        },
                        "args": {
                          "type": [
                            "array",
                            "null"
                          ],
                          "items": {
                            "type": "string",
                            "maxLength": 1024,
                            "pattern": "^[^\\u0000]*$"
                          },
                          "description": "Arguments; an argument may be exactly one of {button}, {type}, {seq}, {t}, {face}, {option}.",
                          "maxItems": 32
                        },
                        "timeoutMs": {
                          "type": [
                            "integer",
                            "null"
                          ],
                          "minimum": 1000,
                          "maximum": 300000
                        },
                        "maxAttempts": {
                          "type": [
                            "integer",
                            "null"
                          ],
                          "minimum": 1,
                          "maximum": 20
                        },
                        "expireAfterMs": {
                          "type": [
                            "integer",
                            "null"
                          ],
                          "minimum": 1000,
                          "maximum": 604800000
                        }
                      }
                    },
                    "id": {
                      "type": [
                        "string",
                        "null"
                      ],
                      "pattern": "^hdl_[a-z0-9][a-z0-9._-]{0,63}$"
                    },
                    "button": {
                      "anyOf": [
                        {
                          "$ref": "#/components/schemas/Name"
                        },
                        {
                          "type": "null"
                        }
                      ]
                    },
                    "sheet": {
                      "anyOf": [
                        {
                          "$ref": "#/components/schemas/Name"
                        },
                        {
                          "type": "null"
                        }
                      ]
                    },
                    "ordered": {
                      "type": "boolean",
                      "description": "Default true. With false, a delivery waiting for its retry does not hold back later ones."
                    }
                  },
                  "oneOf": [
                    {
                      "required": [
                        "webhook"
                      ],
                      "properties": {
                        "script": {
                          "type": "null"
                        }
                      }
                    },
                    {
                      "required": [
                        "script"
                      ],
                      "properties": {
                        "webhook": {
                          "type": "null"
                        }
                      }
                    }
                  ],
                  "allOf": [
                    {
                      "anyOf": [
                        {
                          "required": [
                            "button"
                          ],
                          "properties": {
                            "button": {
                              "type": "string"
                            }
                          }
                        },
                        {
                          "required": [
                            "sheet"
                          ],
                          "properties": {
                            "sheet": {
                              "type": "string"
                            }
                          }
                        }
                      ]
                    }
                  ]
                }
              }
            }
          },
          "MQTTStatus": {
            "type": "object",
            "required": [
              "enabled"
            ],
            "additionalProperties": false,
            "properties": {
              "enabled": {
                "type": "boolean"
              },
              "url": {
                "type": "string",
                "description": "Without its password."
              },
              "instance": {
                "type": "string"
              },
              "topics": {
                "type": "string",
                "description": "<prefix>/<instance>"
              },
              "connection": {
                "type": "string",
                "enum": [
                  "disconnected",
                  "connecting",
                  "connected"
                ]
              },
              "lastError": {
                "type": "string"
              },
              "commands": {
                "type": "boolean"
              },
              "discovery": {
                "type": "boolean"
              },
              "published": {
                "type": "integer"
              },
              "acknowledged": {
                "type": "integer"
              },
              "reconnects": {
                "type": "integer"
              },
              "received": {
                "type": "integer"
              },
              "pending": {
                "type": "integer",
                "description": "Events not yet acknowledged by the broker."
              }
            }
          },
          "Health": {
            "type": "object",
            "required": [
              "state"
            ],
            "additionalProperties": false,
            "properties": {
              "state": {
                "type": "string",
                "enum": [
                  "ok",
                  "failing",
                  "disabled"
                ]
              },
              "reason": {
                "type": "string"
              },
              "handler": {
                "type": "string",
                "description": "The handler this is about (on a button or sheet: the worst of its handlers)."
              }
            }
          }
        },
        "responses": {
          "BadRequest": {
            "description": "Malformed JSON (invalid UTF-8, NUL outside a string, duplicate keys, nesting over 32, numbers out of range) or a member of the wrong JSON type (`code: bad_request`).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "Unauthorized": {
            "description": "Tokens are configured and none, or a wrong one, was sent (`code: unauthorized`).",
            "headers": {
              "WWW-Authenticate": {
                "schema": {
                  "type": "string"
                }
              }
            },
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "Forbidden": {
            "description": "The press token on a route that needs the admin token (`code: forbidden`).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "NotFound": {
            "description": "No such button, sheet, handler or delivery (`code: not_found`).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "MethodNotAllowed": {
            "description": "The path (with any %2F in a parameter decoded) matches a route of another method (`code: method_not_allowed`); `Allow` lists the methods.",
            "headers": {
              "Allow": {
                "schema": {
                  "type": "string"
                }
              }
            },
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "Conflict": {
            "description": "Conflict: `already_exists`, `limit_reached`, `out_of_order`, `already_down`, `not_down`, `not_toggle`, `not_webhook` or `in_flight`.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "TooLarge": {
            "description": "The body is over 64 KiB (`code: payload_too_large`); refused before it is read when Content-Length says so.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "NotJSON": {
            "description": "A non-empty body whose Content-Type is not application/json or */*+json (`code: unsupported_media_type`).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "Invalid": {
            "description": "Well-formed but invalid: out of range, unknown enum value, bad name, unknown field (`code: invalid_value`, with `field`).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "Unavailable": {
            "description": "Storage failed, the delivery queue is full, or too many event streams are open (`code: unavailable`); retry after `Retry-After` seconds.",
            "headers": {
              "Retry-After": {
                "schema": {
                  "type": "integer"
                }
              }
            },
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "Events": {
            "description": "The control events the call produced, in order.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/EventList"
                }
              }
            }
          }
        },
        "parameters": {
          "ButtonID": {
            "name": "id",
            "in": "path",
            "required": true,
            "schema": {
              "type": "string",
              "minLength": 1
            },
            "description": "The button's name.",
            "example": "door"
          },
          "SheetID": {
            "name": "id",
            "in": "path",
            "required": true,
            "schema": {
              "type": "string",
              "minLength": 1
            },
            "description": "The sheet's name.",
            "example": "menu"
          },
          "HandlerID": {
            "name": "hid",
            "in": "path",
            "required": true,
            "schema": {
              "type": "string",
              "minLength": 1
            }
          },
          "DeliveryID": {
            "name": "did",
            "in": "path",
            "required": true,
            "schema": {
              "type": "string",
              "minLength": 1
            }
          },
          "Offset": {
            "name": "offset",
            "in": "query",
            "required": false,
            "schema": {
              "type": "integer",
              "minimum": 0,
              "maximum": 2147483647
            },
            "description": "Items to skip (422 outside 0–2147483647)."
          },
          "After": {
            "name": "after",
            "in": "query",
            "required": false,
            "schema": {
              "type": "integer",
              "minimum": 0,
              "maximum": 9223372036854775807
            },
            "description": "Only events with a larger seq."
          },
          "SourceButton": {
            "name": "button",
            "in": "query",
            "required": false,
            "schema": {
              "$ref": "#/components/schemas/Name"
            },
            "description": "Only this button's (or sheet's) events."
          },
          "SourceSheet": {
            "name": "sheet",
            "in": "query",
            "required": false,
            "schema": {
              "$ref": "#/components/schemas/Name"
            },
            "description": "Only this sheet's events (when `button` is not given)."
          }
        },
        "securitySchemes": {
          "bearerAuth": {
            "type": "http",
            "scheme": "bearer",
            "description": "Authorization: Bearer TOKEN, the admin or the press token."
          },
          "accessToken": {
            "type": "apiKey",
            "in": "query",
            "name": "access_token",
            "description": "The stream only: the token as a query parameter."
          }
        }
      }
    }
    """#
}
