// A Java bot for the arena's tests: fires in reading order and names itself with the heap the JVM
// chose (so a test can see the JVM sized it from the sandbox's memory limit, not the host's RAM) and the
// CPUs it sees (what its thread pools are sized by).
import java.io.BufferedReader;
import java.io.InputStreamReader;

public class Scan {
    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        int cols = 10, shots = 0;
        String line;
        while ((line = in.readLine()) != null) {
            String[] words = line.trim().split("\\s+");
            if (words[0].equals("board")) {
                cols = Integer.parseInt(words[2]);
            } else if (words[0].equals("isready")) {
                long heap = Runtime.getRuntime().maxMemory() >> 20;
                int cpus = Runtime.getRuntime().availableProcessors();
                System.out.println("name java:cpus:" + cpus + ":heap:" + heap);
                System.out.println("readyok");
            } else if (words[0].equals("newgame")) {
                shots = 0;
            } else if (words[0].equals("shoot")) {
                System.out.println((char) ('A' + shots / cols) + Integer.toString(shots % cols + 1));
                shots++;
            } else if (words[0].equals("quit")) {
                break;
            }
            System.out.flush();
        }
    }
}
