import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

/**
 * What Iceberg Java's HadoopTableOperations.findVersion reads of a version hint, for each hint on
 * stdin (one a line, its bytes hex-encoded): the version, or "none" where the read throws and
 * Java lists the metadata directory instead. The read is findVersion's own: the bytes decoded as
 * UTF-8 by an InputStreamReader, the first line from a BufferedReader, Integer.parseInt.
 */
public class VersionHint {
  public static void main(String[] args) throws IOException {
    BufferedReader lines =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
    StringBuilder out = new StringBuilder();
    for (String line = lines.readLine(); line != null; line = lines.readLine()) {
      byte[] hint = new byte[line.length() / 2];
      for (int i = 0; i < hint.length; i++) {
        hint[i] = (byte) Integer.parseInt(line.substring(2 * i, 2 * i + 2), 16);
      }
      out.append(read(hint)).append('\n');
    }
    System.out.print(out);
  }

  private static String read(byte[] hint) {
    try (BufferedReader in =
        new BufferedReader(
            new InputStreamReader(new ByteArrayInputStream(hint), StandardCharsets.UTF_8))) {
      return Integer.toString(Integer.parseInt(in.readLine().replace("\n", "")));
    } catch (Exception e) {
      return "none";
    }
  }
}
