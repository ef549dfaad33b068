package httpapi

import (
	"net/http"
)

// openapi serves the OpenAPI 3.1 description of the four endpoints (dev
// only, as seed 001 does with ENV=DEV).
func (a *API) openapi(w http.ResponseWriter, r *http.Request) {
	a.writeJSON(w, http.StatusOK, openAPISpec(a.cfg.Version))
}

type obj = map[string]any

func ref(name string) obj { return obj{"$ref": "#/components/schemas/" + name} }

func str(desc string) obj { return obj{"type": "string", "description": desc} }

func arr(items obj) obj { return obj{"type": "array", "items": items} }

func nullable(s obj) obj { return obj{"anyOf": []any{s, obj{"type": "null"}}} }

func schema(required []string, props obj) obj {
	o := obj{"type": "object", "properties": props}
	if len(required) > 0 {
		o["required"] = required
	}
	return o
}

func scopeID() obj {
	return obj{"type": "string", "default": "default", "minLength": 1, "maxLength": 128, "pattern": `^[a-zA-Z0-9_.-]+$`,
		"description": `Scope id; "." and ".." are rejected. ("default","default") is palace "default"; other pairs get their own palace.`}
}

func openAPISpec(version string) obj {
	owner := func(kind string) obj {
		return obj{"anyOf": []any{obj{"type": "string", "minLength": 1}, obj{"type": "null"}}, "default": nil,
			"description": "Exactly one of user_id / agent_id (" + kind + ")."}
	}
	ts := obj{"type": "string", "format": "date-time", "description": "ISO-8601 with offset, in the display time zone (LOCI_TIMEZONE)"}
	warnings := obj{"type": "array", "items": obj{"type": "string"},
		"description": "loci's: the body's fields the endpoint does not take, each ignored (\"unknown field 'topk' ignored; did you mean 'top_k'?\"); absent when there are none"}
	schemas := obj{
		"ToolFunction": schema([]string{"name", "arguments"}, obj{"name": str("Function name"), "arguments": str("JSON-encoded arguments")}),
		"ToolCall": schema([]string{"id", "function"}, obj{"id": str("Call id"), "type": obj{"type": "string", "default": "function"},
			"function": ref("ToolFunction")}),
		"ContentItem": schema([]string{"type"}, obj{
			"type":   obj{"type": "string", "enum": contentTypes},
			"text":   nullable(str("Text payload (type text only)")),
			"uri":    nullable(str("http(s):// (when LOCI_ALLOW_HTTP_FETCH=1) or file:// (guardrailed) pointer")),
			"base64": nullable(str("Inline payload, plain base64")),
			"ext":    nullable(str("File extension hint")),
			"name":   nullable(str("Display file name")),
			"extras": nullable(obj{"type": "object"}),
		}),
		"MessageItem": schema([]string{"sender_id", "role", "timestamp", "content"}, obj{
			"sender_id":    obj{"type": "string", "minLength": 1},
			"sender_name":  nullable(obj{"type": "string"}),
			"role":         obj{"type": "string", "enum": []string{"user", "assistant", "tool"}},
			"timestamp":    obj{"type": "integer", "exclusiveMinimum": 0, "description": "Unix epoch ms (values below 10^12 are read as seconds)"},
			"content":      obj{"anyOf": []any{obj{"type": "string"}, arr(ref("ContentItem"))}},
			"tool_calls":   nullable(arr(ref("ToolCall"))),
			"tool_call_id": nullable(obj{"type": "string"}),
		}),
		"FilterNode": obj{"type": "object", "description": "AND / OR lists and field predicates on session_id, parent_type, parent_id, timestamp, sender_id; operators eq ne gt gte lt lte in.",
			"properties": obj{"AND": arr(ref("FilterNode")), "OR": arr(ref("FilterNode"))}, "additionalProperties": true},
		"AddRequest": schema([]string{"session_id", "messages"}, obj{
			"session_id": obj{"type": "string", "minLength": 1, "maxLength": 128},
			"app_id":     scopeID(), "project_id": scopeID(),
			"messages": obj{"type": "array", "items": ref("MessageItem"), "minItems": 1, "maxItems": maxAddMessages},
		}),
		"FlushRequest": schema([]string{"session_id"}, obj{
			"session_id": obj{"type": "string", "minLength": 1, "maxLength": 128},
			"app_id":     scopeID(), "project_id": scopeID(),
		}),
		"SearchRequest": schema([]string{"query"}, obj{
			"user_id": owner("user track"), "agent_id": owner("agent track"),
			"app_id": scopeID(), "project_id": scopeID(),
			"query":             obj{"type": "string", "minLength": 1},
			"method":            obj{"type": "string", "enum": searchMethods, "default": "hybrid"},
			"top_k":             obj{"type": "integer", "default": -1, "description": "-1 or 1..100"},
			"radius":            nullable(obj{"type": "number", "minimum": 0, "maximum": 1}),
			"include_profile":   obj{"type": "boolean", "default": false},
			"enable_llm_rerank": obj{"type": "boolean", "default": false},
			"filters":           nullable(ref("FilterNode")),
		}),
		"GetRequest": schema([]string{"memory_type"}, obj{
			"user_id": owner("episode, profile"), "agent_id": owner("agent_case, agent_skill"),
			"app_id": scopeID(), "project_id": scopeID(),
			"memory_type": obj{"type": "string", "enum": memoryTypes},
			"page":        obj{"type": "integer", "minimum": 1, "default": 1},
			"page_size":   obj{"type": "integer", "minimum": 1, "maximum": 100, "default": 20},
			"sort_by":     obj{"type": "string", "enum": []string{"timestamp", "updated_at"}, "default": "timestamp"},
			"sort_order":  obj{"type": "string", "enum": []string{"asc", "desc"}, "default": "desc"},
			"filters":     nullable(ref("FilterNode")),
		}),
		"Episode": schema(nil, obj{"id": str("<owner>_ep_<YYYYMMDD>_<NNNNNNNN>"), "user_id": nullable(obj{"type": "string"}),
			"app_id": str(""), "project_id": str(""), "session_id": str(""), "timestamp": ts,
			"sender_ids": arr(obj{"type": "string"}), "summary": str("About 200 characters"), "subject": str("One-line title"),
			"episode": str("Third-person narrative"), "type": obj{"type": "string", "enum": []string{"Conversation"}},
			"score": obj{"type": "number"}, "atomic_facts": arr(schema(nil, obj{"id": str("<owner>_af_..."), "content": str(""), "score": obj{"type": "number"}}))}),
		"Profile": schema(nil, obj{"id": str("<user>_profile"), "user_id": nullable(obj{"type": "string"}), "app_id": str(""),
			"project_id": str(""), "profile_data": obj{"type": "object"}, "score": nullable(obj{"type": "number"})}),
		"AgentCase": schema(nil, obj{"id": str("<agent>_ac_..."), "agent_id": str(""), "app_id": str(""), "project_id": str(""),
			"session_id": str(""), "task_intent": str(""), "approach": str(""), "quality_score": obj{"type": "number"},
			"key_insight": nullable(obj{"type": "string"}), "timestamp": ts, "score": obj{"type": "number"}}),
		"AgentSkill": schema(nil, obj{"id": str("<agent>_sk_..."), "agent_id": str(""), "app_id": str(""), "project_id": str(""),
			"name": str(""), "description": str(""), "content": str(""), "confidence": obj{"type": "number"},
			"maturity_score": obj{"type": "number"}, "source_case_ids": arr(obj{"type": "string"}), "score": obj{"type": "number"}}),
		"Error": schema([]string{"request_id", "error"}, obj{"request_id": str("32 lowercase hex"), "warnings": warnings,
			"error": schema(nil, obj{"code": obj{"type": "string", "enum": []string{"HTTP_ERROR", "SYSTEM_ERROR"}},
				"message": str("For 422, the first validation error: \"<message>: <location>\""), "timestamp": ts, "path": str("")})}),
	}
	envelope := func(data obj) obj {
		return obj{"description": "OK", "content": obj{"application/json": obj{"schema": schema([]string{"request_id", "data"},
			obj{"request_id": str("32 lowercase hex"), "data": data, "warnings": warnings})}}}
	}
	errResp := func(desc string) obj {
		return obj{"description": desc, "content": obj{"application/json": obj{"schema": ref("Error")}}}
	}
	op := func(summary, req string, data obj, extra obj) obj {
		responses := obj{"200": envelope(data), "422": errResp("Validation error (first error only)"), "500": errResp("Internal server error")}
		for k, v := range extra {
			responses[k] = v
		}
		return obj{"post": obj{"summary": summary, "requestBody": obj{"required": true,
			"content": obj{"application/json": obj{"schema": ref(req)}}}, "responses": responses}}
	}
	return obj{
		"openapi": "3.1.0",
		"info": obj{"title": "loci — EverOS-compatible memory API", "version": version,
			"description": "Seed 001's /api/v1/memory endpoints served by loci's HTTP companion."},
		"paths": obj{
			"/api/v1/memory/add": op("Append messages to a session buffer", "AddRequest",
				schema(nil, obj{"message_count": obj{"type": "integer"}, "status": obj{"type": "string", "enum": []string{"accumulated", "extracted"}}}),
				obj{"415": errResp("A content item cannot be parsed")}),
			"/api/v1/memory/flush": op("Extract what a session has buffered", "FlushRequest",
				schema(nil, obj{"status": obj{"type": "string", "enum": []string{"extracted", "no_extraction"}}}), nil),
			"/api/v1/memory/search": op("Search one owner's memories", "SearchRequest",
				schema(nil, obj{"episodes": arr(ref("Episode")), "profiles": arr(ref("Profile")), "agent_cases": arr(ref("AgentCase")),
					"agent_skills": arr(ref("AgentSkill")), "unprocessed_messages": arr(obj{"type": "object"})}), nil),
			"/api/v1/memory/get": op("List one owner's memories of a type", "GetRequest",
				schema(nil, obj{"episodes": arr(ref("Episode")), "profiles": arr(ref("Profile")), "agent_cases": arr(ref("AgentCase")),
					"agent_skills": arr(ref("AgentSkill")), "total_count": obj{"type": "integer"}, "count": obj{"type": "integer"}}), nil),
		},
		"components": obj{"schemas": schemas},
	}
}

// docs serves a small self-contained page that renders /openapi.json (no
// scripts or styles from the network).
func (a *API) docs(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "default-src 'self'; script-src 'unsafe-inline' 'self'; style-src 'unsafe-inline'")
	_, _ = w.Write([]byte(docsPage))
}

const docsPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>loci HTTP API</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;margin:2rem auto;max-width:60rem;padding:0 1rem;color:#222}
h2{border-bottom:1px solid #ddd;padding-bottom:.2rem;margin-top:2rem}code,pre{background:#f5f5f5;border-radius:3px}
pre{padding:.6rem;overflow:auto}table{border-collapse:collapse;width:100%}td,th{border:1px solid #ddd;padding:.3rem .5rem;text-align:left;vertical-align:top}
</style></head><body>
<h1>loci HTTP API</h1>
<p>The EverOS-compatible endpoints of loci's HTTP companion. Raw spec: <a href="/openapi.json">/openapi.json</a>.</p>
<div id="out">Loading…</div>
<script>
function esc(s){return String(s).replace(/[&<>"]/g,c=>({'&':'&amp;','<':'&lt;','>':'&gt;','"':'&quot;'}[c]))}
function typeOf(s){if(!s)return'';if(s.$ref)return s.$ref.split('/').pop();if(s.anyOf)return s.anyOf.map(typeOf).join(' | ');
if(s.type==='array')return typeOf(s.items)+'[]';if(s.enum)return s.enum.map(x=>JSON.stringify(x)).join(' | ');return s.type||'object'}
function table(s){if(!s||!s.properties)return'';const req=new Set(s.required||[]);let h='<table><tr><th>field</th><th>type</th><th>required</th><th>notes</th></tr>';
for(const[k,v]of Object.entries(s.properties)){const n=[];for(const x of['default','minimum','maximum','minLength','maxLength','pattern','description'])if(v[x]!==undefined)n.push(x+': '+JSON.stringify(v[x]));
h+='<tr><td><code>'+esc(k)+'</code></td><td>'+esc(typeOf(v))+'</td><td>'+(req.has(k)?'yes':'')+'</td><td>'+esc(n.join('; '))+'</td></tr>'}return h+'</table>'}
fetch('/openapi.json').then(r=>r.json()).then(spec=>{let h='';for(const[p,ops]of Object.entries(spec.paths)){const op=ops.post;
h+='<h2>POST '+esc(p)+'</h2><p>'+esc(op.summary)+'</p>';h+=table(spec.components.schemas[op.requestBody.content['application/json'].schema.$ref.split('/').pop()]);
h+='<p>Responses: '+Object.keys(op.responses).join(', ')+'</p>'}
h+='<h2>Schemas</h2>';for(const[n,s]of Object.entries(spec.components.schemas)){h+='<h3>'+esc(n)+'</h3>'+table(s)}
document.getElementById('out').innerHTML=h}).catch(e=>{document.getElementById('out').textContent='Cannot load /openapi.json: '+e});
</script></body></html>
`
