package io.flightsql.spark.server;

import com.google.protobuf.ByteString;
import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.flatbuf.BodyCompression;
import org.apache.arrow.flatbuf.CompressionType;
import org.apache.arrow.flatbuf.Message;
import org.apache.arrow.flatbuf.MessageHeader;
import org.apache.arrow.flatbuf.RecordBatch;
import org.apache.arrow.flight.impl.Flight;
import org.apache.arrow.flight.impl.FlightServiceGrpc;

/**
 * The codec of each record batch of a DoGet stream, as the server sent it. Arrow's own client
 * decompresses without saying whether it had to, so a test that a server compresses reads the
 * stream here, with gRPC's generated stub, and looks at each message's header.
 */
public final class RecordBatchCodecs {
  private static final long TIMEOUT_SECONDS = 60;

  private RecordBatchCodecs() {}

  /**
   * For each record batch of the stream of {@code ticket} on the plaintext server at {@code host}
   * and {@code port}, in order: {@code "NONE"}, {@code "LZ4_FRAME"} or {@code "ZSTD"}. The stream
   * is read to its end within a minute.
   */
  public static List<String> of(String host, int port, byte[] ticket) {
    ManagedChannel channel = NettyChannelBuilder.forAddress(host, port).usePlaintext().build();
    try {
      Iterator<Flight.FlightData> messages =
          FlightServiceGrpc.newBlockingStub(channel)
              .withDeadlineAfter(TIMEOUT_SECONDS, TimeUnit.SECONDS)
              .doGet(Flight.Ticket.newBuilder().setTicket(ByteString.copyFrom(ticket)).build());
      List<String> codecs = new ArrayList<>();
      while (messages.hasNext()) {
        Flight.FlightData data = messages.next();
        if (data.getDataHeader().isEmpty()) {
          continue;
        }
        Message message = Message.getRootAsMessage(data.getDataHeader().asReadOnlyByteBuffer());
        if (message.headerType() != MessageHeader.RecordBatch) {
          continue;
        }
        BodyCompression compression =
            ((RecordBatch) message.header(new RecordBatch())).compression();
        codecs.add(compression == null ? "NONE" : CompressionType.name(compression.codec()));
      }
      return codecs;
    } finally {
      channel.shutdownNow();
    }
  }
}
