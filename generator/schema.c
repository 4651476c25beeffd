/*
 * generator/schema.c: see schema.h. Every key comes from intent_keysets:
 * this file only gives each (mapping, key) its JSON type, so a key added
 * to the reader without a type here makes `gpuform schema` fail (and the
 * unit and schema suites with it) instead of a schema that silently drifts.
 */
#include "generator/schema.h"

#include <string.h>

#include "generator/intent.h"

enum stype {
	S_STRING,
	S_INT,
	S_BOOL,
	S_ENUM,
	S_CONST,
	S_OBJECT,       /* a mapping of intent_keysets[path] */
	S_OBJECT_LIST,  /* a list of such mappings */
	S_OPEN_OBJECT,  /* a mapping read by another module */
	S_STRING_MAP,   /* string -> string */
	S_STRING_OR_LIST,
	S_SHARING,      /* "none" or the sharing mapping */
};

struct stype_entry {
	const char *path, *key;
	enum stype type;
	long long min, max;        /* S_INT */
	const char *const *names;  /* S_ENUM */
	const char *value;         /* S_CONST; path of nested for objects */
	const char *desc;
};


static const struct stype_entry types[] = {
	{ "", "apiVersion", S_CONST, 0, 0, NULL, "gpuform.io/v1alpha1",
	  "the intent format" },
	{ "", "kind", S_CONST, 0, 0, NULL, "ClusterIntent", NULL },
	{ "", "metadata", S_OBJECT, 0, 0, NULL, "metadata", NULL },
	{ "", "spec", S_OBJECT, 0, 0, NULL, "spec", NULL },
	{ "metadata", "name", S_STRING, 0, 0, NULL, NULL,
	  "the EKS cluster name" },
	{ "spec", "nodeRole", S_STRING, 0, 0, NULL, NULL,
	  "IAM role of the Karpenter nodes" },
	{ "spec", "instanceProfile", S_STRING, 0, 0, NULL, NULL, NULL },
	{ "spec", "ami", S_STRING, 0, 0, NULL, NULL,
	  "AMI family and pinned release, e.g. al2023@v20250505" },
	{ "spec", "discovery", S_STRING, 0, 0, NULL, NULL,
	  "karpenter.sh/discovery tag value (default: metadata.name)" },
	{ "spec", "imageCache", S_OBJECT, 0, 0, NULL, "spec.imageCache", NULL },
	{ "spec", "network", S_OBJECT, 0, 0, NULL, "spec.network", NULL },
	{ "spec", "generalPurpose", S_OBJECT, 0, 0, NULL,
	  "spec.generalPurpose", NULL },
	{ "spec", "maintenanceWindow", S_OBJECT, 0, 0, NULL,
	  "spec.maintenanceWindow", NULL },
	{ "spec", "workloads", S_OBJECT_LIST, 0, 0, NULL, "spec.workloads[]",
	  NULL },
	{ "spec", "nvidiaDevicePlugin", S_OBJECT, 0, 0, NULL,
	  "spec.nvidiaDevicePlugin", NULL },
	{ "spec", "nodeRepair", S_BOOL, 0, 0, NULL, NULL, NULL },
	{ "spec", "targets", S_OPEN_OBJECT, 0, 0, NULL, NULL,
	  "controller releases: {karpenter: vX.Y.Z, kueue: vX.Y.Z}" },
	{ "spec", "acknowledge", S_OBJECT_LIST, 0, 0, NULL, "spec.acknowledge[]",
	  "accepted warnings: {rule, reason, workload|pool}" },
	{ "spec", "addons", S_OBJECT, 0, 0, NULL, "spec.addons", NULL },
	{ "spec.addons", "delivery", S_ENUM, 0, 0, addons_delivery_names, NULL,
	  "how the add-ons are delivered (default values)" },
	{ "spec.acknowledge[]", "rule", S_STRING, 0, 0, NULL, NULL,
	  "an intent warning's rule id, e.g. INT003" },
	{ "spec.acknowledge[]", "reason", S_STRING, 0, 0, NULL, NULL, NULL },
	{ "spec.acknowledge[]", "workload", S_STRING, 0, 0, NULL, NULL, NULL },
	{ "spec.acknowledge[]", "pool", S_STRING, 0, 0, NULL, NULL, NULL },
	{ "spec.nvidiaDevicePlugin", "namespace", S_STRING, 0, 0, NULL, NULL,
	  NULL },
	{ "spec.imageCache", "snapshotID", S_STRING, 0, 0, NULL, NULL, NULL },
	{ "spec.imageCache", "size", S_STRING, 0, 0, NULL, NULL,
	  "a quantity, e.g. 200Gi" },
	{ "spec.imageCache", "initializationRate", S_INT, 100, 300, NULL, NULL,
	  NULL },
	{ "spec.imageCache", "fastSnapshotRestore", S_BOOL, 0, 0, NULL, NULL,
	  NULL },
	{ "spec.network", "prefixDelegation", S_BOOL, 0, 0, NULL, NULL, NULL },
	{ "spec.network", "efaSecurityGroup", S_STRING, 0, 0, NULL, NULL, NULL },
	{ "spec.network", "efaOnlyInterfaces", S_BOOL, 0, 0, NULL, NULL, NULL },
	{ "spec.generalPurpose", "enabled", S_BOOL, 0, 0, NULL, NULL, NULL },
	{ "spec.maintenanceWindow", "schedule", S_STRING, 0, 0, NULL, NULL,
	  "cron expression, e.g. \"0 3 * * *\"" },
	{ "spec.maintenanceWindow", "duration", S_STRING, 0, 0, NULL, NULL,
	  "e.g. 2h, 1h30m" },
	{ "spec.workloads[]", "name", S_STRING, 0, 0, NULL, NULL, NULL },
	{ "spec.workloads[]", "type", S_ENUM, 0, 0, wl_type_names, NULL, NULL },
	{ "spec.workloads[]", "gpu", S_STRING_OR_LIST, 0, 0, NULL, NULL,
	  "GPU class or list of classes (gpuform explain gpu)" },
	{ "spec.workloads[]", "gpusPerPod", S_INT, 1, 16, NULL, NULL, NULL },
	{ "spec.workloads[]", "gang", S_INT, 1, 10000, NULL, NULL, NULL },
	{ "spec.workloads[]", "interruption", S_ENUM, 0, 0,
	  wl_interruption_names, NULL, NULL },
	{ "spec.workloads[]", "efa", S_BOOL, 0, 0, NULL, NULL, NULL },
	{ "spec.workloads[]", "hugepages2Mi", S_STRING, 0, 0, NULL, NULL,
	  "2 MiB pages per pod, e.g. 5120Mi (EFA on Bottlerocket)" },
	{ "spec.workloads[]", "sharing", S_SHARING, 0, 0, NULL,
	  "spec.workloads[].sharing", NULL },
	{ "spec.workloads[]", "maxGpus", S_INT, 1, 100000, NULL, NULL, NULL },
	{ "spec.workloads[]", "namespace", S_STRING, 0, 0, NULL, NULL, NULL },
	{ "spec.workloads[]", "capacity", S_OBJECT, 0, 0, NULL,
	  "spec.workloads[].capacity", NULL },
	{ "spec.workloads[]", "placement", S_OBJECT, 0, 0, NULL,
	  "spec.workloads[].placement", NULL },
	{ "spec.workloads[].placement", "zone", S_STRING_OR_LIST, 0, 0, NULL,
	  NULL, NULL },
	{ "spec.workloads[].placement", "placementGroup", S_STRING, 0, 0, NULL,
	  NULL, NULL },
	{ "spec.workloads[].placement", "topology", S_OPEN_OBJECT, 0, 0, NULL,
	  NULL, NULL },
	{ "spec.workloads[].sharing", "timeSlicing", S_INT, 2, 48, NULL, NULL,
	  NULL },
	{ "spec.workloads[].sharing", "mig", S_STRING, 0, 0, NULL, NULL, NULL },
	{ "spec.workloads[].capacity", "reservations", S_OBJECT_LIST, 0, 0,
	  NULL, "spec.workloads[].capacity.reservations[]", NULL },
	{ "spec.workloads[].capacity", "type", S_ENUM, 0, 0, cap_type_names,
	  NULL, NULL },
	{ "spec.workloads[].capacity", "instances", S_INT, 1, 10000, NULL, NULL,
	  NULL },
	{ "spec.workloads[].capacity", "whenExhausted", S_ENUM, 0, 0,
	  cap_fallback_names, NULL, NULL },
	{ "spec.workloads[].capacity.reservations[]", "id", S_STRING, 0, 0,
	  NULL, NULL, NULL },
	{ "spec.workloads[].capacity.reservations[]", "tags", S_STRING_MAP, 0,
	  0, NULL, NULL, NULL },
	{ "spec.workloads[].capacity.reservations[]", "ownerID", S_STRING, 0, 0,
	  NULL, NULL, NULL },
};

/* required keys by mapping (what intent_read reports as missing) */
static const struct {
	const char *path;
	const char *keys[5];
} required[] = {
	{ "", { "apiVersion", "kind", "metadata", "spec", NULL } },
	{ "metadata", { "name", NULL } },
	{ "spec", { "ami", NULL } },
	{ "spec.maintenanceWindow", { "schedule", "duration", NULL } },
	{ "spec.workloads[]", { "name", "type", "gpu", "maxGpus", NULL } },
	{ "spec.acknowledge[]", { "rule", "reason", NULL } },
};

/* one-of / any-of key rules (what intent_read reports by path) */
static const struct {
	const char *path, *json;
} alternatives[] = {
	{ "spec", "\"oneOf\": [{\"required\": [\"nodeRole\"]}, "
		  "{\"required\": [\"instanceProfile\"]}],\n" },
	{ "spec.workloads[].capacity.reservations[]",
	  "\"anyOf\": [{\"required\": [\"id\"]}, "
	  "{\"required\": [\"tags\"]}],\n" },
};

static void str(struct buf *b, const char *s)
{
	buf_addc(b, '"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			buf_addc(b, '\\');
		buf_addc(b, *s);
	}
	buf_addc(b, '"');
}

static void indent(struct buf *b, int n)
{
	for (int i = 0; i < n; i++)
		buf_adds(b, "  ");
}

static const struct stype_entry *type_of(const char *path, const char *key)
{
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (!strcmp(types[i].path, path) && !strcmp(types[i].key, key))
			return &types[i];
	return NULL;
}

static const char *const *keys_of(const char *path)
{
	for (const struct intent_keyset *k = intent_keysets; k->path; k++)
		if (!strcmp(k->path, path))
			return k->keys;
	return NULL;
}

static int object(struct buf *b, const char *path, int d, struct err *e);

static int value(struct buf *b, const struct stype_entry *t, int d,
		 struct err *e)
{
	switch (t->type) {
	case S_STRING:
		buf_adds(b, "\"type\": \"string\"");
		break;
	case S_INT:
		buf_addf(b, "\"type\": \"integer\", \"minimum\": %lld, "
			    "\"maximum\": %lld", t->min, t->max);
		break;
	case S_BOOL:
		buf_adds(b, "\"type\": \"boolean\"");
		break;
	case S_CONST:
		buf_adds(b, "\"const\": ");
		str(b, t->value);
		break;
	case S_ENUM:
		buf_adds(b, "\"enum\": [");
		for (size_t i = 0; t->names[i]; i++) {
			if (i)
				buf_adds(b, ", ");
			str(b, t->names[i]);
		}
		buf_addc(b, ']');
		break;
	case S_OBJECT:
		return object(b, t->value, d, e);
	case S_OBJECT_LIST:
		buf_adds(b, "\"type\": \"array\",\n");
		indent(b, d);
		buf_adds(b, "\"items\": {\n");
		indent(b, d + 1);
		if (object(b, t->value, d + 1, e) < 0)
			return -1;
		buf_addc(b, '\n');
		indent(b, d);
		buf_addc(b, '}');
		break;
	case S_OPEN_OBJECT:
		buf_adds(b, "\"type\": \"object\"");
		break;
	case S_STRING_MAP:
		buf_adds(b, "\"type\": \"object\", \"minProperties\": 1, "
			    "\"additionalProperties\": {\"type\": \"string\"}");
		break;
	case S_STRING_OR_LIST:
		buf_adds(b, "\"anyOf\": [{\"type\": \"string\"}, "
			    "{\"type\": \"array\", \"minItems\": 1, "
			    "\"items\": {\"type\": \"string\"}}]");
		break;
	case S_SHARING:
		buf_adds(b, "\"anyOf\": [\n");
		indent(b, d + 1);
		buf_adds(b, "{\"const\": \"none\"},\n");
		indent(b, d + 1);
		buf_adds(b, "{\n");
		indent(b, d + 2);
		buf_adds(b, "\"minProperties\": 1, \"maxProperties\": 1,\n");
		indent(b, d + 2);
		if (object(b, t->value, d + 2, e) < 0)
			return -1;
		buf_addc(b, '\n');
		indent(b, d + 1);
		buf_adds(b, "}\n");
		indent(b, d);
		buf_addc(b, ']');
		break;
	}
	return 0;
}

static int object(struct buf *b, const char *path, int d, struct err *e)
{
	const char *const *keys = keys_of(path);

	if (!keys)
		return err_set(e, ERR_INVALID, "schema: no key table for '%s'",
			       path);
	buf_adds(b, "\"type\": \"object\",\n");
	indent(b, d);
	buf_adds(b, "\"additionalProperties\": false,\n");
	indent(b, d);
	for (size_t i = 0; i < sizeof(required) / sizeof(required[0]); i++) {
		if (strcmp(required[i].path, path))
			continue;
		buf_adds(b, "\"required\": [");
		for (size_t j = 0; required[i].keys[j]; j++) {
			if (j)
				buf_adds(b, ", ");
			str(b, required[i].keys[j]);
		}
		buf_adds(b, "],\n");
		indent(b, d);
	}
	for (size_t i = 0; i < sizeof(alternatives) / sizeof(alternatives[0]);
	     i++) {
		if (strcmp(alternatives[i].path, path))
			continue;
		buf_adds(b, alternatives[i].json);
		indent(b, d);
	}
	buf_adds(b, "\"properties\": {");
	for (size_t i = 0; keys[i]; i++) {
		const struct stype_entry *t = type_of(path, keys[i]);
		if (!t)
			return err_set(e, ERR_INVALID,
				       "schema: key '%s' of '%s' has no type "
				       "in generator/schema.c", keys[i], path);
		buf_adds(b, i ? ",\n" : "\n");
		indent(b, d + 1);
		str(b, keys[i]);
		buf_adds(b, ": {\n");
		indent(b, d + 2);
		if (t->desc) {
			buf_adds(b, "\"description\": ");
			str(b, t->desc);
			buf_adds(b, ",\n");
			indent(b, d + 2);
		}
		if (value(b, t, d + 2, e) < 0)
			return -1;
		buf_addc(b, '\n');
		indent(b, d + 1);
		buf_addc(b, '}');
	}
	buf_addc(b, '\n');
	indent(b, d);
	buf_addc(b, '}');
	return 0;
}

int schema_write(struct buf *out, struct err *e)
{
	buf_adds(out, "{\n  \"$schema\": \"http://json-schema.org/draft-07/schema#\",\n"
		      "  \"$id\": \"https://gpuform.io/schema/v1alpha1/clusterintent.json\",\n"
		      "  \"title\": \"gpuform ClusterIntent (gpuform.io/v1alpha1)\",\n"
		      "  \"description\": \"Generated by 'gpuform schema' from the "
		      "intent reader's key tables; shape only, run 'gpuform validate' "
		      "for the cross-field rules.\",\n  ");
	if (object(out, "", 1, e) < 0)
		return -1;
	buf_adds(out, "\n}\n");
	return 0;
}
