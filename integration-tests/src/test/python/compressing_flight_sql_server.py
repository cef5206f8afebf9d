"""A small Flight SQL server on pyarrow (Arrow C++) whose query streams are compressed.

Usage: compressing_flight_sql_server.py PORT [ROWS]. Listens on 127.0.0.1:PORT, prints READY once
it serves, then serves until killed. CompressedStreamsIT reads it through the shaded jar.

Tables, each ROWS rows (100,000 by default) in batches of 10,000, all with the columns of
people(): zstd_people and lz4_people, whose DoGet streams compress every record batch with that
codec (pyarrow's IpcWriteOptions(compression=...)), and plain_people, sent as it is. Tables
uploaded with bulk ingestion (DoPut CommandStatementIngest, in any compression) are kept in memory
and read back like the others; an upload target must exist, as zstd_uploads, lz4_uploads and
plain_uploads do (empty, with the columns of uploads()).

SQL: only SELECT * FROM <table>, optionally with WHERE 1 = 0, the table name optionally quoted;
anything else is INVALID_ARGUMENT, an unknown table NOT_FOUND. No GetSchema, GetSqlInfo, prepared
statement, metadata command or transaction: UNIMPLEMENTED, as on many servers. Every call's command
is written to the output, one line each.
"""
import datetime
import decimal
import re
import sys
import threading

import pyarrow as pa
import pyarrow.flight as flight

BATCH_ROWS = 10_000
TYPE_PREFIX = "type.googleapis.com/arrow.flight.protocol.sql."
SELECT = re.compile(r'^\s*SELECT \* FROM [`"]?(\w+)[`"]?(\s+WHERE 1 = 0)?\s*$', re.IGNORECASE)
CODECS = {"zstd": "zstd", "lz4": "lz4", "plain": None}


def people(rows):
    """The rows that CompressedStreamsIT expects, each value a function of the row number i."""
    ids = range(rows)
    return pa.table({
        "id": pa.array(ids, pa.int64()),
        "name": pa.array([None if i % 7 == 0 else f"name {i % 100} \u00e9\u2713" for i in ids],
                         pa.string()),
        "score": pa.array([i / 4 for i in ids], pa.float64()),
        "flag": pa.array([i % 3 == 0 for i in ids], pa.bool_()),
        "day": pa.array([datetime.date(2020, 1, 1) + datetime.timedelta(days=i % 1000)
                         for i in ids], pa.date32()),
        "seen": pa.array([1_600_000_000_000_000 + i * 1_000_001 for i in ids],
                         pa.timestamp("us", tz="UTC")),
        "amount": pa.array([decimal.Decimal(i * 125).scaleb(-2) for i in ids],
                           pa.decimal128(12, 2)),
        "tags": pa.array([None if i % 4 == 0 else [i % 5, None] for i in ids],
                         pa.list_(pa.int32())),
    })


def uploads():
    """The columns of the upload targets, as Spark's DataFrame of CompressedStreamsIT has them."""
    return pa.schema([
        ("id", pa.int64()),
        ("name", pa.string()),
        ("amount", pa.decimal128(14, 2)),
        ("seen", pa.timestamp("us", tz="UTC")),
    ])


def varint(data, pos):
    """A protobuf varint at pos: (value, next position)."""
    value = shift = 0
    while True:
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, pos
        shift += 7


def fields(data):
    """The fields of a protobuf message: {number: [value, ...]}, bytes for length-delimited ones."""
    out = {}
    pos = 0
    while pos < len(data):
        key, pos = varint(data, pos)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = varint(data, pos)
        elif wire == 2:
            length, pos = varint(data, pos)
            value, pos = bytes(data[pos:pos + length]), pos + length
        elif wire == 1:
            value, pos = bytes(data[pos:pos + 8]), pos + 8
        elif wire == 5:
            value, pos = bytes(data[pos:pos + 4]), pos + 4
        else:
            raise ValueError(f"unsupported protobuf wire type {wire}")
        out.setdefault(number, []).append(value)
    return out


def command(descriptor):
    """The Flight SQL command of a descriptor: (its name, its fields)."""
    if descriptor.descriptor_type != flight.DescriptorType.CMD:
        raise NotImplementedError("only command descriptors are served")
    packed = fields(descriptor.command)  # google.protobuf.Any: type_url = 1, value = 2
    type_url = packed.get(1, [b""])[0].decode()
    if not type_url.startswith(TYPE_PREFIX):
        raise NotImplementedError(f"not a Flight SQL command: {type_url}")
    return type_url[len(TYPE_PREFIX):], fields(packed.get(2, [b""])[0])


class Server(flight.FlightServerBase):
    def __init__(self, location, rows):
        self.lock = threading.Lock()
        self.tables = {}
        for prefix in CODECS:
            self.tables[f"{prefix}_people"] = people(rows)
            self.tables[f"{prefix}_uploads"] = uploads().empty_table()
        # Listens from here on: the tables exist before any call can come.
        super().__init__(location)

    def table(self, name):
        with self.lock:
            table = self.tables.get(name.lower())
        if table is None:
            raise KeyError(f"no table {name}")
        return table

    def get_flight_info(self, context, descriptor):
        name, body = command(descriptor)
        print("GetFlightInfo", name, body, flush=True)
        if name != "CommandStatementQuery":
            raise NotImplementedError(f"{name} is not implemented")
        sql = body.get(1, [b""])[0].decode()
        match = SELECT.match(sql)
        if not match:
            raise ValueError(f"this server runs only SELECT * FROM <table>, not: {sql}")
        table = self.table(match.group(1))
        ticket = match.group(1).lower() + ("?empty" if match.group(2) else "")
        rows = 0 if match.group(2) else table.num_rows
        endpoint = flight.FlightEndpoint(ticket.encode(), [])
        return flight.FlightInfo(table.schema, descriptor, [endpoint], rows, -1)

    def get_schema(self, context, descriptor):
        raise NotImplementedError("GetSchema is not implemented")

    def do_get(self, context, ticket):
        name, _, empty = ticket.ticket.decode().partition("?")
        print("DoGet", name, empty, flush=True)
        table = self.table(name)
        if empty:
            table = table.schema.empty_table()
        codec = CODECS.get(name.split("_")[0])
        batches = pa.Table.from_batches(table.to_batches(BATCH_ROWS), schema=table.schema)
        return flight.RecordBatchStream(batches, options=pa.ipc.IpcWriteOptions(compression=codec))

    def do_put(self, context, descriptor, reader, writer):
        name, body = command(descriptor)
        print("DoPut", name, body, flush=True)
        if name != "CommandStatementIngest":
            raise NotImplementedError(f"{name} is not implemented")
        target = body.get(2, [b""])[0].decode().lower()
        self.table(target)  # must exist
        received = reader.read_all()
        # Uploads run at once (a write's tasks): each adds to the table as it is when it ends.
        with self.lock:
            existing = self.tables[target]
            matched = received.select(existing.schema.names).cast(existing.schema)
            self.tables[target] = pa.concat_tables([existing, matched]).combine_chunks()
        # DoPutUpdateResult: record_count = 1 (int64, varint).
        count = received.num_rows
        result = bytearray([0x08])
        while True:
            byte = count & 0x7F
            count >>= 7
            result.append(byte | (0x80 if count else 0))
            if not count:
                break
        writer.write(pa.py_buffer(bytes(result)))

    def do_action(self, context, action):
        print("DoAction", action.type, flush=True)
        raise NotImplementedError(f"action {action.type} is not implemented")

    def list_actions(self, context):
        return []


def main():
    port = int(sys.argv[1])
    rows = int(sys.argv[2]) if len(sys.argv) > 2 else 100_000
    server = Server(f"grpc://127.0.0.1:{port}", rows)
    print("READY", flush=True)
    server.serve()


if __name__ == "__main__":
    main()
